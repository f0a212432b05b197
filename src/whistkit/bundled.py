"""The ``whistkit`` program of the self-contained bundle (``./run bundle``,
docs/install.md): Python, whistkit and the solver's compiled core in one folder, for a
hall's laptop without Python or internet.

With arguments it is the ``whistkit`` command (``whistkit evening``, ``whistkit play``,
...). Without any (a double-click on it), it starts the evening organiser for the hall:
listening on the hall's network at port 8000 (any free port when another program holds
8000), the hall's address and its QR code in the terminal, the organiser opened in a
browser on this machine. When it stops on an error in a window of its own, it waits for
Enter, so that the window does not vanish before the host has read why.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Sequence

from .cli import main as cli_main

HALL_PORT = 8000


def port_free(port: int) -> bool:
    """Can the organiser listen on ``port`` on all interfaces (nothing else listens)?"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def hall_arguments(port: int | None = None) -> list[str]:
    """The command a double-click runs: ``whistkit evening`` for the hall's network, on
    ``port`` (:data:`HALL_PORT`) if it is free, else on any free port."""
    port = HALL_PORT if port is None else port
    if not port_free(port):
        port = 0
    return ["evening", "--host", "0.0.0.0", "--port", str(port), "--browser"]


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv:
        return cli_main(argv)
    code = cli_main(hall_arguments())
    if code != 0 and sys.stdin is not None and sys.stdin.isatty():
        with contextlib.suppress(EOFError, KeyboardInterrupt):
            input("Press Enter to close this window.")
    return code


__all__ = ["HALL_PORT", "hall_arguments", "main", "port_free"]
