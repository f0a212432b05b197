"""Sockets relayed between server processes (see :mod:`whistkit.server.cluster`).

A client's WebSocket lands on any process. When it joins (or watches) a table that
another process owns, its process (the *edge*) relays it: the owner gets ``open`` and
then each client message as it came (``in``), runs it as one of its own connections
(:class:`Remote`: the same :class:`whistkit.server.app.Connection`, whose outgoing
messages go back to the edge as JSON texts, batched per edge and turn of the event
loop), and the edge passes them to the socket unchanged. The client sees the same
protocol whichever process its socket landed on.

Either side may go: the edge tells the owner ``close`` when the socket closes; the owner
tells the edge ``gone`` when it let the table go (its lease lapsed or was unloaded), and
``kick`` when a shared table closed the connection (taken over, seat closed). Each
keeping round the edge checks that the owners of its relays still hold their leases,
and the owner that the edges of its relayed connections are still alive; a relay whose
other side is gone is closed (the edge closes its socket with 1012, so that the page
reconnects, to any process).

Bounds: at most :data:`IN_QUEUE` client messages wait at the owner per relayed
connection (the edge relays one socket's messages as they come; beyond that the relay is
closed, as a local socket that floods is), and the edge's outbox bounds what waits for a
slow reader as for any socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .cluster import Cluster
from .protocol import dumps_message

log = logging.getLogger("whistkit.server")

IN_QUEUE = 64  # client messages waiting at the owner per relayed connection
RPC_SECONDS = 5.0  # an answer to a request between processes


class Edge(Protocol):
    """A local socket's connection as the relay uses it (``app.Connection``)."""

    def deliver(self, texts: list[str]) -> None: ...

    def kick_text(self, text: str) -> None: ...

    def drop(self) -> None: ...


class Owned(Protocol):
    """A relayed connection at the owner (``app.Connection`` with a :class:`RemoteOut`)."""

    async def handle(self, raw: str | bytes) -> None: ...

    def close(self) -> None: ...


class RemoteOut(asyncio.Queue[dict[str, Any]]):
    """A relayed connection's outgoing messages at the owner: each is made JSON text once
    and sent to the edge with the others of this turn of the loop."""

    def __init__(self, relays: Relays, edge: str, cid: str) -> None:
        super().__init__()
        self.relays = relays
        self.edge = edge
        self.cid = cid
        self.conn: Any = None  # the connection it belongs to (set by the connection)

    def put_nowait(self, item: dict[str, Any]) -> None:
        self.relays.queue_out(self.edge, self.cid, dumps_message(item))


class Remote:
    """A relayed connection at the owner: its connection and its messages in order."""

    def __init__(self, conn: Owned, edge: str, cid: str) -> None:
        self.conn = conn
        self.edge = edge
        self.cid = cid
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            while True:
                raw = await self.inbox.get()
                if raw is None:
                    return
                await self.conn.handle(raw)
        finally:
            self.conn.close()


class Relays:
    """This process's relays, both ways, and its requests to other processes."""

    def __init__(self, cluster: Cluster, make_remote: Callable[[RemoteOut, str], Owned]) -> None:
        self.cluster = cluster
        self.make_remote = make_remote
        self.edges: dict[str, tuple[Edge, str, str]] = {}  # cid -> (conn, game, owner node)
        self.remotes: dict[str, Remote] = {}  # cid -> the relayed connection here
        self._out: dict[str, list[list[str]]] = {}  # edge node -> [[cid, text], ...]
        self._flushing = False
        self._calls: dict[str, asyncio.Future[Any]] = {}
        # (op, arguments) -> the answer: the requests other processes may make of this one
        self.answer: Callable[[str, dict[str, Any]], Awaitable[Any]] | None = None
        cluster.on_message = self.on_message
        cluster.on_round = self.check

    # -- the edge's side -------------------------------------------------------------

    def open(self, conn: Edge, game: str, owner: str, raw: str | bytes, base: str) -> str:
        """Relay a socket to ``owner`` from its message ``raw`` (a join or watch);
        ``base`` is the address the socket came to (for invite links)."""
        cid = self.cluster.next_id()
        self.edges[cid] = (conn, game, owner)
        self.cluster.send(owner, {"t": "open", "c": cid, "n": self.cluster.node, "b": base})
        self.forward(cid, raw)
        return cid

    def forward(self, cid: str, raw: str | bytes) -> None:
        relay = self.edges.get(cid)
        if relay is None:
            return
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if not self.cluster.send(relay[2], {"t": "in", "c": cid, "d": text}):
            del self.edges[cid]  # the bus is behind: the socket reconnects later
            relay[0].drop()

    def close(self, cid: str) -> None:
        """The socket left the relay (closed, or joined another game)."""
        relay = self.edges.pop(cid, None)
        if relay is not None:
            self.cluster.send(relay[2], {"t": "close", "c": cid})

    # -- the owner's side ------------------------------------------------------------

    def queue_out(self, edge: str, cid: str, text: str) -> None:
        self._out.setdefault(edge, []).append([cid, text])
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        out, self._out = self._out, {}
        for edge, items in out.items():
            self.cluster.send(edge, {"t": "out", "b": items})

    def gone(self, edge: str, cid: str) -> None:
        """Tell the edge the owner let this connection go (the socket reconnects)."""
        self.remotes.pop(cid, None)
        self.cluster.send(edge, {"t": "gone", "c": cid})

    # -- messages from the bus -------------------------------------------------------

    def on_message(self, kind: str, msg: dict[str, Any]) -> None:
        cid = str(msg.get("c", ""))
        if kind == "out":
            for item in msg.get("b", ()):
                relay = self.edges.get(item[0])
                if relay is not None:
                    relay[0].deliver([item[1]])
        elif kind == "in":
            remote = self.remotes.get(cid)
            if remote is None:
                edge = cid.rsplit(":", 1)[0]
                self.cluster.send(edge, {"t": "gone", "c": cid})
            elif remote.inbox.qsize() >= IN_QUEUE:
                self._drop_remote(cid)
            else:
                remote.inbox.put_nowait(msg.get("d", ""))
        elif kind == "open":
            edge = str(msg.get("n", ""))
            out = RemoteOut(self, edge, cid)
            self.remotes[cid] = Remote(self.make_remote(out, str(msg.get("b", ""))), edge, cid)
        elif kind == "close":
            remote = self.remotes.pop(cid, None)
            if remote is not None:
                remote.inbox.put_nowait(None)
        elif kind == "kick":
            relay = self.edges.pop(cid, None)
            if relay is not None:
                relay[0].kick_text(str(msg.get("m", "")))
        elif kind == "gone":
            relay = self.edges.pop(cid, None)
            if relay is not None:
                relay[0].drop()
        elif kind == "rpc":
            asyncio.get_running_loop().create_task(self._answer(msg))
        elif kind == "re":
            call = self._calls.pop(str(msg.get("id")), None)
            if call is not None and not call.done():
                call.set_result(msg.get("r"))

    def _drop_remote(self, cid: str) -> None:
        remote = self.remotes.pop(cid, None)
        if remote is not None:
            remote.inbox.put_nowait(None)
            self.cluster.send(remote.edge, {"t": "gone", "c": cid})

    def kick(self, out: RemoteOut, text: str) -> None:
        """A shared table closed this relayed connection: the edge sends ``text`` (the
        error) and closes its socket."""
        remote = self.remotes.pop(out.cid, None)
        if remote is not None:
            remote.inbox.put_nowait(None)
        self.cluster.send(out.edge, {"t": "kick", "c": out.cid, "m": text})

    def drop(self, out: RemoteOut) -> None:
        """The owner let the table go: the edge closes the socket so that it reconnects."""
        self._drop_remote(out.cid)

    # -- requests between processes --------------------------------------------------

    async def call(self, node: str, op: str, args: dict[str, Any]) -> Any:
        """Ask ``node`` (the owner of a table) and wait for its answer (None after
        :data:`RPC_SECONDS`)."""
        rid = self.cluster.next_id()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[rid] = future
        self.cluster.send(node, {"t": "rpc", "id": rid, "n": self.cluster.node, "op": op, **args})
        try:
            return await asyncio.wait_for(future, RPC_SECONDS)
        except TimeoutError:
            return None
        finally:
            self._calls.pop(rid, None)

    async def _answer(self, msg: dict[str, Any]) -> None:
        result = None
        if self.answer is not None:
            try:
                result = await self.answer(str(msg.get("op")), msg)
            except Exception:
                log.exception("a request from another process could not be answered")
        self.cluster.send(str(msg.get("n")), {"t": "re", "id": msg.get("id"), "r": result})

    # -- the keeping round -----------------------------------------------------------

    async def check(self) -> None:
        """Close the relays whose other side is gone: at the edge, those whose owner no
        longer holds the lease; at the owner, those whose edge is no longer alive."""
        if self.edges:
            cids = list(self.edges)
            games = [self.edges[c][1] for c in cids]
            holders = await self.cluster.holders(games)
            for cid, holder in zip(cids, holders, strict=True):
                relay = self.edges.get(cid)
                if relay is not None and holder != relay[2]:
                    del self.edges[cid]
                    relay[0].drop()
        if self.remotes:
            edges = sorted({r.edge for r in self.remotes.values()})
            alive = await self.cluster.alive(edges)
            for cid, remote in list(self.remotes.items()):
                if not alive.get(remote.edge, False):
                    self.remotes.pop(cid, None)
                    remote.inbox.put_nowait(None)

    async def shutdown(self) -> None:
        """This process stops: close its relays both ways."""
        for cid in list(self.edges):
            relay = self.edges.pop(cid)
            relay[0].drop()
        for remote in list(self.remotes.values()):
            remote.inbox.put_nowait(None)
            self.cluster.send(remote.edge, {"t": "gone", "c": remote.cid})
        tasks = [r.task for r in self.remotes.values()]
        self.remotes.clear()
        for task in tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 1.0)


__all__ = ["IN_QUEUE", "Relays", "Remote", "RemoteOut"]
