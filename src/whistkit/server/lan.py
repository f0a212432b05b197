"""The machine's address on its network and a QR code of it in the terminal: for a
server listening on all interfaces (``whistkit play --host 0.0.0.0``, ``whistkit
evening --host 0.0.0.0``), so that phones in the room open it."""

from __future__ import annotations

import socket
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


__all__ = ["WILDCARD_HOSTS", "Listening", "lan_address", "network_url", "terminal_qr"]
