"""``whistkit evening`` (or ``whistkit evening serve``): serve the organiser.

Binds 127.0.0.1 by default; ``--host 0.0.0.0`` opens it to the hall's network, and then
the terminal shows the laptop's address on that network with a QR code of it, and the
table cards carry that address. The host's link of every open evening is printed too (it
holds the host key: the terminal is the host's).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..server import listen
from ..server.lan import (
    WILDCARD_HOSTS,
    Listening,
    lan_address,
    network_url,
    open_browser,
    terminal_qr,
)


def public_url(host: str, port: int) -> str:
    """The address phones in the hall use: the LAN address when listening on all
    interfaces, else the one listened on."""
    return network_url(host, port)


def serve(
    db: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    ready: Callable[[str, list[str]], None] | None = None,
) -> None:
    """Run the organiser until interrupted. ``ready`` gets the public URL and the host
    links of the open evenings once the address is bound and the database opened."""
    import uvicorn

    from .web import create_app

    sock = listen(host, port)
    with sock:
        sock.listen(2048)  # connections wait in the queue from now on, not refused
        url = public_url(host, sock.getsockname()[1])
        app = create_app(db, public_url=url)
        if ready is not None:
            org = app.state.organiser
            links = []
            for evening, title, status, _ in org.store.list():
                row = org.store.get(evening)
                if status != "finished" and row is not None:
                    links.append(f"{title}: {url}e/{evening}/host?key={row.host_key}")
            ready(url, links)
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
        hub = app.state.organiser.hub

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                # long polls are held open for up to 20 s: answer them so the stop is quick
                hub.close_threadsafe()
                super().handle_exit(sig, frame)

        Server(config).run(sockets=[sock])


def add_serve_arguments(parser: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """--host, --port, --db; without ``defaults`` they keep what the parent parser read
    (``whistkit evening --port 8080 serve``)."""
    keep = argparse.SUPPRESS
    parser.add_argument(
        "--host",
        default="127.0.0.1" if defaults else keep,
        help="address to listen on (default 127.0.0.1; 0.0.0.0 for the hall's network:"
        " prints that address and its QR code)",
    )
    parser.add_argument(
        "--port", type=int, default=8000 if defaults else keep, help="port (default 8000)"
    )
    parser.add_argument(
        "--db",
        default=None if defaults else keep,
        help="SQLite file (default: the web game's games.sqlite3 under the user data dir)",
    )
    parser.add_argument(
        "--browser",
        action="store_true",
        default=False if defaults else keep,
        help="open the organiser in a browser on this machine (where there is one)",
    )


def add_serve(evening: argparse.ArgumentParser) -> None:
    """Make bare ``whistkit evening`` and ``whistkit evening serve`` serve the organiser
    (``evening`` is the parser :func:`whistkit.cli.add_evening_parser` made)."""
    add_serve_arguments(evening)
    evening.set_defaults(func=cmd_serve)
    subs = next(a for a in evening._actions if isinstance(a, argparse._SubParsersAction))
    serve_parser = subs.add_parser(
        "serve",
        help="serve the organiser (the default): host pages, phones, projector, print",
        description="Serve the félagsvist evening organiser (docs/evening.md,"
        " 'Running an evening').",
    )
    add_serve_arguments(serve_parser, defaults=False)
    serve_parser.set_defaults(func=cmd_serve)


EXIT_USAGE = 2  # as whistkit.cli's (not imported: the cli imports this module)


def default_db() -> Path:
    """The web game's database, which the evenings share: ``games.sqlite3`` in the user
    data directory (``whistkit.cli.default_data_dir``)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("whistkit", appauthor=False)) / "games.sqlite3"


def here_url(url: str, host: str) -> str:
    """The organiser's address on this machine: loopback when listening on all
    interfaces (the host's own pages need no network), else ``url``."""
    if host in WILDCARD_HOSTS:
        return Listening("127.0.0.1", urlsplit(url).port or 80).url
    return url


def cmd_serve(args: argparse.Namespace) -> int:
    db = Path(args.db) if args.db else default_db()

    def ready(url: str, links: list[str]) -> None:
        print(f"whistkit evening: the organiser is at {url} (stored in {db}; Ctrl-C stops)")
        if args.host in ("0.0.0.0", "::"):
            print("Phones in the hall open this address (the table cards carry it):")
            terminal_qr(url, sys.stdout)
        for link in links:
            print(f"host link of {link}")
        sys.stdout.flush()
        if args.browser:
            open_browser(here_url(url, args.host))

    try:
        serve(db, host=args.host, port=args.port, ready=ready)
    except KeyboardInterrupt:
        pass
    except (OSError, ValueError) as e:
        print(f"whistkit evening: {e}", file=sys.stderr)
        return EXIT_USAGE
    return 0


__all__ = [
    "add_serve",
    "add_serve_arguments",
    "cmd_serve",
    "here_url",
    "lan_address",
    "open_browser",
    "public_url",
    "serve",
]
