"""The organiser's edge: what one phone (or anything else on the hall's Wi-Fi) may cost
the server, and which names, origins and machines it answers.

The game server's edge (:mod:`whistkit.server.security`, issue 18) is reused whole: the
``Host`` and ``Origin`` checks and the security headers (:class:`~whistkit.server.
security.Edge`), the connection limits at accept (:func:`~whistkit.server.security.
gated_protocol`) and one log line for running out of descriptors
(:func:`~whistkit.server.security.quiet_accept_failures`). This module adds what a hall
needs on top:

- :func:`evening_protocol`: the gated protocol whose header timeout holds for every
  request of a connection, not only its first (a request head or a body sent a byte at a
  time is closed ``header_timeout`` seconds after the previous answer or the head), and
  whose refusals are logged: one line per kind per :data:`LOG_EVERY` seconds, with how
  many were refused meanwhile, never a line per connection.
- :class:`OnceInAWhile`: a logging filter that lets each message through once per
  :data:`LOG_EVERY` seconds (uvicorn's "Invalid HTTP request received." for every
  garbage connection).
- :func:`from_this_machine`: whether a request comes from the laptop the organiser runs
  on (loopback, or the connection's two ends are the same address).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from typing import Any

from starlette.requests import Request

from ..server.limits import Limits
from ..server.security import gated_protocol

log = logging.getLogger("whistkit.evening")
LOG_EVERY = 60.0  # seconds between two log lines of the same kind


class OnceInAWhile(logging.Filter):
    """Let a message through once per ``every`` seconds; the next one through says how
    many were held back meanwhile."""

    def __init__(self, every: float = LOG_EVERY, clock: Any = time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self.last: dict[str, float] = {}
        self.held: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = f"{record.name}:{record.levelno}:{record.msg}"
        now = self.clock()
        last = self.last.get(key)
        if last is not None and now - last < self.every:
            self.held[key] = self.held.get(key, 0) + 1
            return False
        self.last[key] = now
        held = self.held.pop(key, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more like it in {self.every:.0f} s)"
        return True


def evening_protocol(limits: Limits, every: float = LOG_EVERY) -> type[Any]:
    """The game server's gated HTTP protocol (connection limits in all and per address,
    a 503 at once beyond them) with the header timeout on every request of a connection
    and the request body bounded in time the same way; refusals logged once in a while."""
    base: Any = gated_protocol(limits)
    most = limits.connections
    timeout = limits.header_timeout
    refused: dict[str, int] = {"full": 0, "address": 0}
    said: dict[str, float] = {}

    def note(kind: str, message: str) -> None:
        refused[kind] += 1
        now = time.monotonic()
        if now - said.get(kind, -every) >= every:
            said[kind] = now
            count, refused[kind] = refused[kind], 0
            log.warning("%s (%d refused; said once a minute at most)", message, count)

    class EveningProtocol(base):  # type: ignore[misc]
        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if not transport.is_closing():
                return
            if len(self.connections) > most:
                note("full", f"refusing connections: {most} are open, the most allowed")
            else:
                address = self.client[0] if self.client else "?"
                note(
                    "address",
                    f"refusing connections from {address}: it has"
                    f" {limits.max_connections_per_client} open, the most allowed per address",
                )

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            cycle = self.cycle
            if cycle is not None and cycle is not before and not self.transport.is_closing():
                # a request head came: its body has the header timeout to come whole
                self.loop.call_later(timeout, self._body_late, self.transport, cycle)

        def _body_late(self, transport: asyncio.Transport, cycle: Any) -> None:
            if transport.is_closing() or transport.get_protocol() is not self:
                return
            if self.cycle is cycle and cycle.more_body and not cycle.response_complete:
                transport.close()

        def on_response_complete(self) -> None:
            done = self.cycle
            super().on_response_complete()
            if not self.transport.is_closing():
                # the next request's head has the header timeout to come whole
                self.loop.call_later(timeout, self._head_late, self.transport, done)

        def _head_late(self, transport: asyncio.Transport, done: Any) -> None:
            if transport.is_closing() or transport.get_protocol() is not self:
                return
            if self.cycle is done:  # no new request since that answer
                transport.close()

    return EveningProtocol


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def from_this_machine(request: Request) -> bool:
    """Whether ``request`` comes from the machine the server runs on: from a loopback
    address, or from the very address it reached (the laptop opening its own hall
    address). Not from a proxy's header: ``whistkit evening`` trusts none."""
    client = request.scope.get("client")
    server = request.scope.get("server")
    if not client:
        return False
    if is_loopback(str(client[0])):
        return True
    return server is not None and str(client[0]) == str(server[0])


__all__ = ["LOG_EVERY", "OnceInAWhile", "evening_protocol", "from_this_machine", "is_loopback"]
