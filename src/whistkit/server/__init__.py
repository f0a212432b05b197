"""The web game: ``whistkit play`` serves it on 127.0.0.1:8000 (see docs/web.md)."""

from __future__ import annotations

from pathlib import Path


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


__all__ = ["serve"]
