"""The server's edge: which names and origins it answers, the headers of every response,
request bodies refused before they are read whole, and connections refused at accept.

- :class:`Edge` (ASGI middleware around the app): the ``Host`` must be one of the
  server's own names (:func:`allowed_hosts`: loopback names, the ``--host`` it listens on,
  the host of ``--public-url``), so a DNS-rebinding page gets nothing; a WebSocket or a
  state-changing request (POST and the like) from a browser must come from the server's
  own origin (the ``Origin`` header, or ``Sec-Fetch-Site`` when there is none), so
  another site can neither join a seat nor create a game, ``text/plain`` "simple"
  requests included; a request body longer than the limit is refused (413) from its
  ``Content-Length`` before any of it is read, and while it streams when it has none;
  a body that has not come whole within the body timeout after the head is refused
  (408) and its connection closed; every response carries :data:`SECURITY_HEADERS`.
- :func:`gated_protocol`: uvicorn's HTTP protocol with a check at accept time: beyond
  the connection limits (in all, per client address) a connection gets a short 503 and
  is closed at once, so file descriptors never run out; a connection that sends no
  request within the header timeout is closed.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .limits import Limits
from .protocol import quote

# Content-Security-Policy: scripts, styles and connections from the server itself only
# (no inline script or style anywhere in static/), never framed.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none';"
    " form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
log = logging.getLogger("whistkit.server")
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def host_name(value: str) -> str | None:
    """The host name of a ``Host`` header value (``example.org:8000``, ``[::1]:80``),
    lower-case, without the port; None if it is not one."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1 :] not in ("",) and not value[end + 1 :].startswith(":")):
            return None
        return value[1:end] or None
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def public_origin(public_url: str | None) -> tuple[str | None, str | None]:
    """``(origin, host)`` of ``--public-url`` (``https://cards.example.org/``); a URL
    that is not http(s) with a host is a ``ValueError``."""
    if not public_url:
        return None, None
    parts = urlsplit(public_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"--public-url must be an http:// or https:// URL with a host, not {public_url!r}"
        )
    default_port = 443 if parts.scheme == "https" else 80
    netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if parts.port is not None and parts.port != default_port:
        netloc += f":{parts.port}"
    return f"{parts.scheme}://{netloc}", parts.hostname.lower()


def allowed_hosts(host: str, public_url: str | None = None) -> frozenset[str]:
    """The names the server answers for: loopback names, ``host`` (the address it listens
    on; for a wildcard address, the machine's own names and addresses) and the host of
    ``public_url``."""
    names = set(LOOPBACK_NAMES)
    host = host.strip().lower().strip("[]")
    if host in WILDCARDS:
        names |= _machine_names()
    else:
        names.add(host)
    _, public_host = public_origin(public_url)
    if public_host:
        names.add(public_host)
    return frozenset(names)


def _machine_names() -> set[str]:
    names: set[str] = set()
    try:
        hostname = socket.gethostname()
        names |= {hostname.lower(), socket.getfqdn().lower()}
        for info in socket.getaddrinfo(hostname, None):
            names.add(str(info[4][0]).lower())
    except OSError:
        pass
    return names


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class BodyTooLarge(Exception):
    """A request body passed the limit while it streamed."""


class BodyTooSlow(Exception):
    """A request body did not arrive whole within the body timeout."""


class Edge:
    """ASGI middleware: host and origin checks, body limit, security headers (see the
    module's docstring)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: Iterable[str],
        public_url: str | None = None,
        max_body_bytes: int = Limits.max_body_bytes,
        body_timeout: float = Limits.body_timeout,
    ) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.public_origin, _ = public_origin(public_url)
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        problem, status = self.refusal(scope)
        if problem is not None:
            await self.refuse(scope, receive, send, status, problem)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.strip().isdigit() or len(length) > 18:
                await self.refuse(scope, receive, send, 400, "Content-Length is not a number")
                return
            if int(length) > self.max_body_bytes:
                await self.refuse(scope, receive, send, 413, self.too_large())
                return
        received = 0
        started = False
        whole = False  # the body came to its end
        deadline = asyncio.get_running_loop().time() + self.body_timeout

        async def counting_receive() -> Message:
            nonlocal received, whole
            if whole:
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), max(left, 0.0))
            except TimeoutError:
                raise BodyTooSlow(
                    f"the request body did not come whole within {self.body_timeout:g} s"
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise BodyTooLarge(self.too_large())
                whole = not message.get("more_body", False)
            return message

        async def secured_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": _with_security(message.get("headers", []))}
            await send(message)

        try:
            await self.app(scope, counting_receive, secured_send)
        except BodyTooLarge as e:
            if started:
                raise
            await _respond(send, 413, str(e))
        except BodyTooSlow as e:
            if started:
                raise
            await _respond(send, 408, str(e))

    def too_large(self) -> str:
        return f"the request body is larger than {self.max_body_bytes} bytes"

    def refusal(self, scope: Scope) -> tuple[str | None, int]:
        """Why the request is refused (and its status), or ``(None, 0)``."""
        raw_host = _header(scope, b"host")
        name = host_name(raw_host) if raw_host is not None else None
        if name is None or name not in self.hosts:
            return f"this server does not answer for the host {quote(raw_host)}", 421
        if scope["type"] == "http" and scope.get("method", "GET") in SAFE_METHODS:
            return None, 0
        origin = _header(scope, b"origin")
        if origin is None:
            site = _header(scope, b"sec-fetch-site")
            if site is not None and site not in ("same-origin", "none"):
                return f"a {site} request is refused here", 403
            return None, 0  # not from a browser (browsers send Origin on these requests)
        own = {f"http://{raw_host}".lower(), f"https://{raw_host}".lower()}
        if self.public_origin is not None:
            own.add(self.public_origin)
        if origin.strip().lower().rstrip("/") not in own:
            return f"requests from the origin {quote(origin)} are refused here", 403
        return None, 0

    async def refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, problem: str
    ) -> None:
        if scope["type"] == "http":
            await _respond(send, status, problem)
            return
        message = await receive()  # websocket.connect
        if message["type"] != "websocket.connect":
            return
        if "websocket.http.response" in scope.get("extensions", {}):
            await _respond(send, status, problem, prefix="websocket.")
        else:  # the server answers 403 itself
            await send({"type": "websocket.close", "code": 1008, "reason": problem[:120]})


def _with_security(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    out = list(headers)
    present = {k.lower() for k, _ in out}
    out += [(k, v) for k, v in SECURITY_HEADERS if k not in present]
    return out


async def _respond(send: Send, status: int, problem: str, prefix: str = "") -> None:
    body = (problem + "\n").encode("utf-8")
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    if prefix == "" and status in (400, 408, 413):
        headers.append((b"connection", b"close"))
    await send(
        {
            "type": f"{prefix}http.response.start",
            "status": status,
            "headers": _with_security(headers),
        }
    )
    await send({"type": f"{prefix}http.response.body", "body": body})


def _refusal_bytes(problem: str) -> bytes:
    body = (problem + "\n").encode()
    head = [
        b"HTTP/1.1 503 Service Unavailable",
        b"content-type: text/plain; charset=utf-8",
        b"content-length: " + str(len(body)).encode(),
        b"connection: close",
        b"retry-after: 5",
        *(k + b": " + v for k, v in SECURITY_HEADERS),
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def gated_protocol(limits: Limits) -> type[Any]:
    """uvicorn's h11 HTTP protocol with the connection limits checked at accept: a
    connection over ``limits.connections`` in all or ``limits.max_connections_per_client``
    from its address gets a 503 and is closed before anything of it is read; one that
    sends no request within ``limits.header_timeout`` seconds is closed."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    most = limits.connections
    per_client = limits.max_connections_per_client
    refused_full = _refusal_bytes("the server is full; try again in a moment")
    refused_client = _refusal_bytes("too many connections from your address")

    class GatedProtocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            refusal = None
            if len(self.connections) > most:
                refusal = refused_full
            elif self.client is not None:
                address = self.client[0]
                same = sum(
                    1
                    for c in self.connections
                    if (getattr(c, "client", None) or ("",))[0] == address
                )
                if same > per_client:
                    refusal = refused_client
            if refusal is not None:
                transport.write(refusal)
                transport.close()
                return
            self.loop.call_later(limits.header_timeout, self._unheard, transport)

        def _unheard(self, transport: asyncio.Transport) -> None:
            # still this protocol's (not upgraded to a WebSocket) and no request came
            if transport.is_closing() or transport.get_protocol() is not self:
                return
            if self.cycle is None:
                transport.close()

    return GatedProtocol


_ACCEPT_FAILED = "socket.accept() out of system resource"


def quiet_accept_failures(loop: asyncio.AbstractEventLoop, every: float = 10.0) -> None:
    """Make ``loop`` say in one line, at most once per ``every`` seconds, that it ran out
    of file descriptors (or memory) accepting connections, where asyncio logs a
    traceback for each failed accept; every other error goes to the previous handler."""
    previous = loop.get_exception_handler()
    last = [-every]

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _ACCEPT_FAILED:
            now = loop.time()
            if now - last[0] >= every:
                last[0] = now
                log.warning(
                    "cannot accept connections: %s; refusing them until some close",
                    context.get("exception"),
                )
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


__all__ = [
    "CSP",
    "SECURITY_HEADERS",
    "BodyTooLarge",
    "BodyTooSlow",
    "Edge",
    "allowed_hosts",
    "gated_protocol",
    "host_name",
    "public_origin",
    "quiet_accept_failures",
]
