"""``whistkit evening`` (or ``whistkit evening serve``): serve the organiser.

Binds 127.0.0.1 by default; ``--host 0.0.0.0`` opens it to the hall's network, and then
the terminal shows the laptop's address on that network with a QR code of it, and the
table cards carry that address. The host's link of every open evening is printed too (it
holds the host key: the terminal is the host's).
"""

from __future__ import annotations

import argparse
import dataclasses
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
from ..server.limits import Limits, env_name


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
    limits: Limits | None = None,
    creator_key: str | None = None,
) -> None:
    """Run the organiser until interrupted. ``ready`` gets the public URL and the host
    links of the open evenings once the address is bound and the database opened.

    The game server's limits hold here too (``limits``, default :meth:`Limits.from_env`;
    docs/evening.md, "What one phone cannot do"): connections in all and per address, the
    header (and body) timeout, the listen backlog; the app answers only its own names
    and origins (:func:`whistkit.server.security.allowed_hosts`). Evenings are created
    from this machine only, or from a browser that opened ``/?key=creator_key``."""
    import logging

    import uvicorn

    from ..server.security import allowed_hosts
    from .edge import OnceInAWhile, evening_protocol
    from .web import create_app

    limits = Limits.from_env() if limits is None else limits
    sock = listen(host, port)
    with sock:
        sock.listen(limits.backlog)  # connections wait in the queue from now on
        url = public_url(host, sock.getsockname()[1])
        hosts = set(allowed_hosts(host))
        hall = urlsplit(url).hostname  # the address the cards and phones use
        if hall:
            hosts.add(hall.lower())
        app = create_app(db, public_url=url, hosts=hosts, creator_key=creator_key)
        if ready is not None:
            org = app.state.organiser
            links = []
            for evening, title, status, _ in org.store.list():
                row = org.store.get(evening)
                if status != "finished" and row is not None:
                    links.append(f"{title}: {url}e/{evening}/host?key={row.host_key}")
            ready(url, links)
        # a flood of garbage is said once in a while, not once per connection
        logging.getLogger("uvicorn.error").addFilter(OnceInAWhile())
        config = uvicorn.Config(
            app,
            log_level="warning",
            timeout_graceful_shutdown=5,
            loop="asyncio",  # the accept gate is reckoned for asyncio's accepting
            http=evening_protocol(limits),
            # beyond the gate's limit (it counts the connection being accepted)
            limit_concurrency=limits.connections + 1,
            backlog=limits.backlog,
            proxy_headers=False,  # never behind a proxy: the peer's address is the truth
        )
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
    fields = {f.name: f for f in dataclasses.fields(Limits)}
    for name in LIMIT_FLAGS:
        f = fields[name]
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=int,
            metavar="N",
            dest=f"limit_{name}",
            default=None if defaults else keep,
            help=f"{f.metadata['help']} (${env_name(name)})",
        )


# the game server's limits that the organiser takes as flags too (the others: variables)
LIMIT_FLAGS = ("max_connections", "max_connections_per_client", "header_timeout", "backlog")


def limits_of(args: argparse.Namespace) -> Limits:
    """The limits from the environment (``WHISTKIT_MAX_CONNECTIONS``...) with the flags
    given applied; a bad value is a ``ValueError`` naming it."""
    base = Limits.from_env()
    given = {
        name: getattr(args, f"limit_{name}")
        for name in LIMIT_FLAGS
        if getattr(args, f"limit_{name}", None) is not None
    }
    return dataclasses.replace(base, **given)


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
    import secrets

    db = Path(args.db) if args.db else default_db()
    # another device may create evenings only with this key (this laptop needs none)
    creator_key = secrets.token_urlsafe(12)
    try:
        limits = limits_of(args)
    except ValueError as e:
        print(f"whistkit evening: {e}", file=sys.stderr)
        return EXIT_USAGE

    def ready(url: str, links: list[str]) -> None:
        print(f"whistkit evening: the organiser is at {url} (stored in {db}; Ctrl-C stops)")
        if args.host in ("0.0.0.0", "::"):
            print("Phones in the hall open this address (the table cards carry it):")
            terminal_qr(url, sys.stdout)
            print(
                "Evenings are created on this laptop; to create one from another device,"
                f" open {url}?key={creator_key}"
            )
        for link in links:
            print(f"host link of {link}")
        sys.stdout.flush()
        if args.browser:
            open_browser(here_url(url, args.host))

    try:
        serve(
            db,
            host=args.host,
            port=args.port,
            ready=ready,
            limits=limits,
            creator_key=creator_key,
        )
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
