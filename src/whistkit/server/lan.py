"""The machine's address on its network and a QR code of it in the terminal: for a
server listening on all interfaces (``whistkit play --host 0.0.0.0``, ``whistkit
evening --host 0.0.0.0``), so that phones in the room open it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from typing import NamedTuple, TextIO

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})


def lan_address() -> str | None:
    """This machine's address on its network (the route a packet out would take), or
    None. Nothing is sent: connecting a UDP socket only picks the route."""
    for probe in ("192.0.2.1", "10.255.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                address: str = s.getsockname()[0]
        except OSError:
            continue
        if not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


class Listening(NamedTuple):
    """Where the server listens (``port`` is the real one when 0 was asked for)."""

    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


def network_url(host: str, port: int) -> str:
    """The address others on the network use: the LAN address when listening on all
    interfaces, else the one listened on."""
    if host in WILDCARD_HOSTS:
        host = lan_address() or "127.0.0.1"
    return Listening(host, port).url


def terminal_qr(url: str, out: TextIO) -> None:
    """A QR code of ``url`` drawn with characters in the terminal."""
    import segno

    segno.make(url, error="m").terminal(out=out, compact=True)


def outside_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` as the programs this one starts need it: in the bundle
    (``./run bundle``) its loader put its own libraries first on the library path and
    kept the original aside; a browser started with the bundle's would load them."""
    env = dict(environ)
    original = env.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        env["LD_LIBRARY_PATH"] = original
    else:
        env.pop("LD_LIBRARY_PATH", None)
    return env


def open_browser(url: str) -> None:
    """Open ``url`` in this machine's browser, soon and in the background; nothing
    happens where there is none (a server, the hall's minimal machine). In the bundle on
    Linux the browser starts with the library path the bundle was started with; this
    process's own environment stays as it is (its worker processes need it)."""
    import threading
    import webbrowser

    def run() -> None:
        if getattr(sys, "frozen", False) and sys.platform.startswith("linux"):
            try:
                subprocess.Popen(
                    ["xdg-open", url],
                    env=outside_environment(os.environ),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                return
            except OSError:  # no xdg-open: Python's own search
                pass
        webbrowser.open(url)

    threading.Timer(0.8, run).start()


__all__ = [
    "WILDCARD_HOSTS",
    "Listening",
    "lan_address",
    "network_url",
    "open_browser",
    "outside_environment",
    "terminal_qr",
]
