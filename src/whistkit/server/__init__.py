"""The web game: ``whistkit play`` serves it on 127.0.0.1:8000 (see docs/web.md)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .lan import Listening
from .limits import Limits

if TYPE_CHECKING:
    from .app import Preset


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: any free port); errors name the address."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be from 0 to 65535, not {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        raise OSError(
            f"cannot listen on {host}:{port}: {e.strerror or e}; choose another --port"
        ) from None
    return sock


def serve(
    db: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    bot_delay: float | None = None,
    preset: Preset | None = None,
    ready: Callable[[Listening], None] | None = None,
    public_url: str | None = None,
    limits: Limits | None = None,
    bus: str | None = None,
) -> None:
    """Run the web game with uvicorn until interrupted; games are stored in ``db``.

    ``preset`` is what the new-game dialog offers first; ``public_url`` is the server's
    address behind a proxy (its host is answered, its origin allowed); ``limits``
    default to :meth:`Limits.from_env`. The store is opened and the address bound before
    ``ready`` is called with where the server listens, so a bad preset or database or a
    busy port is an error (``ValueError``, ``OSError``) before anything is announced.

    uvicorn gets the limits that are its to apply: the WebSocket frame size, the listen
    backlog, ``limit_concurrency`` (a 503 beyond the connection limit) and an HTTP
    protocol that refuses connections over the limits at accept
    (:func:`whistkit.server.security.gated_protocol`). The process's garbage collector
    gets the policy of :mod:`whistkit.server.collector` (startup frozen, the thresholds
    and the period of full collections from ``limits``).
    """
    import uvicorn

    from . import collector
    from .app import create_app
    from .lan import WILDCARD_HOSTS, network_url
    from .security import gated_protocol

    limits = Limits.from_env() if limits is None else limits
    if bus is not None:
        _check_bus(bus)
    sock = listen(host, port)
    with sock:
        port = sock.getsockname()[1]
        # on all interfaces: invite links carry the machine's address on its network
        lan_url = network_url(host, port) if host.strip("[]") in WILDCARD_HOSTS else None
        app = create_app(
            db,
            bot_delay=bot_delay,
            preset=preset,
            host=host,
            public_url=public_url,
            limits=limits,
            lan_url=lan_url,
            bus=bus,
        )
        # the garbage collector's policy (server.collector), its timer run by the lifespan
        collector.apply(limits)
        app.state.full_gc_seconds = limits.gc_full_seconds
        # listening before the address is announced: a browser opened on it at once is
        # queued in the backlog until uvicorn accepts, never refused
        sock.listen(limits.backlog)
        if ready is not None:
            ready(Listening(host, port))
        config = uvicorn.Config(
            app,
            log_level="warning",
            # asyncio's own loop, also where uvloop is installed (uvicorn would take it):
            # the accept gate's descriptor reserve is reckoned for asyncio's accepting, and
            # under uvloop a ramp of connections overflowed the listen backlog (docs/web.md)
            loop="asyncio",
            ws="websockets-sansio",
            http=gated_protocol(limits),
            ws_max_size=limits.max_frame_bytes,
            # beyond the gate's limit (it counts the connection being accepted)
            limit_concurrency=limits.connections + 1,
            backlog=limits.backlog,
            # the proxy's X-Forwarded-For is trusted only from loopback (uvicorn's default)
        )
        uvicorn.Server(config).run(sockets=[sock])


def _check_bus(bus: str) -> None:
    """``ValueError`` naming a bus that cannot be reached (before anything is served)."""
    try:
        import redis
    except ImportError:
        raise ValueError("--bus needs redis-py: pip install 'whistkit[service]'") from None
    try:
        client = redis.Redis.from_url(bus, socket_connect_timeout=5, socket_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, ValueError) as e:
        raise ValueError(f"cannot reach the bus {bus}: {e}") from None


__all__ = ["Listening", "listen", "serve"]
