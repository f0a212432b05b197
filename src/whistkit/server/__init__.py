"""The web game: ``whistkit play`` serves it on 127.0.0.1:8000 (see docs/web.md)."""

from __future__ import annotations

from pathlib import Path


def check_address(host: str, port: int) -> None:
    """Raise OSError naming the address if the server could not listen there."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as e:
            raise OSError(
                f"cannot listen on {host}:{port}: {e.strerror or e}; choose another --port"
            ) from None


def serve(
    db: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    bot_delay: float | None = None,
) -> None:
    """Run the web game with uvicorn until interrupted; games are stored in ``db``."""
    import uvicorn

    from .app import create_app

    app = create_app(db, bot_delay=bot_delay)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws="websockets-sansio")


__all__ = ["check_address", "serve"]
