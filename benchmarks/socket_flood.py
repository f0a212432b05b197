"""A flood of WebSocket frames against one server, and one player's ping meanwhile
(issue 32, item 15: 60 sockets sending frames of 64 KB, 20 a second each).

Starts ``whistkit play`` from ``--src`` (a checkout's ``src``, to compare before and
after a change) on a free port, a flood in a process of its own (raw sockets sending one
pre-masked frame over and over, so that the flood costs its sender little), and a player
that joins a game and pings every 50 ms. Prints one JSON line: the player's ping round
trips (p50, p99, max, in ms), the flood frames the server answered, and the server's CPU
seconds over the measured time. Run it niced on a shared machine, and compare runs made
at the same time (the figures move with the machine's load).

    nice -n 19 .venv/bin/python benchmarks/socket_flood.py --src src --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

FRAME_CHARS = 64_000  # a ping padded to just under the default 64 KiB frame limit


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(src: str, folder: str) -> tuple[subprocess.Popen[bytes], int]:
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()), WHISTKIT_BOT_DELAY="0")
    out = Path(folder) / "out"
    with open(out, "wb") as stdout, open(Path(folder) / "err", "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "whistkit.cli", "play", "--no-browser", "--port", "0"]
            + ["--db", f"{folder}/games.sqlite3", "--max-connections-per-client", "200"],
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    for _ in range(300):
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", out.read_text())
        if found:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/api/meta", timeout=2)
                return proc, int(found.group(1))
            except OSError:
                pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def masked_frame(text: str) -> bytes:
    payload = text.encode()
    mask = os.urandom(4)
    size = len(payload)
    length = bytes([0x80 | 126]) + size.to_bytes(2, "big")
    if size > 65535:
        length = bytes([0x80 | 127]) + size.to_bytes(8, "big")
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x81]) + length + mask + body


async def count_answers(reader: asyncio.StreamReader, answered: list[int]) -> None:
    """Read the server's answers (the flood's frames are pings too large for their
    fields: each is answered ``malformed``)."""
    while chunk := await reader.read(65536):
        answered[0] += chunk.count(b'"malformed"')


async def flooder(port: int, frame: bytes, per_second: float, answered: list[int]) -> None:
    """One socket sending ``frame`` ``per_second`` times a second, reconnecting if closed."""
    while True:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                (
                    f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            await reader.readuntil(b"\r\n\r\n")

            reading = asyncio.create_task(count_answers(reader, answered))
            start, sent = time.monotonic(), 0
            while not reading.done():
                writer.write(frame)
                await writer.drain()
                sent += 1
                delay = start + sent / per_second - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            writer.close()
        except (OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.1)


async def flood(port: int, sockets: int, per_second: float) -> None:
    frame = masked_frame(json.dumps({"type": "ping", "x": "a" * FRAME_CHARS}))
    answered = [0]

    async def report() -> None:
        while True:
            await asyncio.sleep(0.5)
            print(answered[0], flush=True)

    reporting = asyncio.create_task(report())
    await asyncio.gather(*[flooder(port, frame, per_second, answered) for _ in range(sockets)])
    reporting.cancel()


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    with tempfile.TemporaryDirectory() as folder:
        proc, port = start_server(args.src, folder)
        flooding = None
        try:
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/games",
                data=b'{"seed": 1}',
                headers={"content-type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=30) as r:
                game = json.load(r)
            if args.sockets:
                flooding = await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--flood-port",
                    str(port),
                    "--sockets",
                    str(args.sockets),
                    "--rate",
                    str(args.rate),
                    stdout=asyncio.subprocess.PIPE,
                )
                await asyncio.sleep(2)
            rtts: list[float] = []
            async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
                join = {"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}
                await ws.send(json.dumps(join))
                while json.loads(await ws.recv())["type"] != "state":
                    pass
                cpu = cpu_seconds(proc.pid)
                end = time.monotonic() + args.seconds
                while time.monotonic() < end:
                    sent = time.monotonic()
                    await ws.send('{"type": "ping"}')
                    while json.loads(await ws.recv())["type"] != "pong":
                        pass
                    rtts.append((time.monotonic() - sent) * 1000)
                    await asyncio.sleep(0.05)
                cpu = cpu_seconds(proc.pid) - cpu
            answered = 0
            if flooding is not None:
                flooding.terminate()
                out, _ = await flooding.communicate()
                lines = out.decode().split()
                answered = int(lines[-1]) if lines else 0
        finally:
            proc.terminate()
            proc.wait(10)
    rtts.sort()

    def at(q: float) -> float:
        return round(rtts[min(len(rtts) - 1, int(q * len(rtts)))], 1)

    return {
        "src": args.src,
        "sockets": args.sockets,
        "frames_per_second": args.sockets * args.rate,
        "seconds": args.seconds,
        "pings": len(rtts),
        "p50_ms": at(0.5),
        "p99_ms": at(0.99),
        "max_ms": round(rtts[-1], 1),
        "flood_frames_answered": answered,
        "server_cpu_s": round(cpu, 2),
        "load_average": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default="src", help="the checkout's src to serve from")
    parser.add_argument("--seconds", type=float, default=30, help="seconds measured")
    parser.add_argument("--sockets", type=int, default=60, help="flooding sockets (0: none)")
    parser.add_argument("--rate", type=float, default=20, help="frames a second per socket")
    parser.add_argument("--flood-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood_port:
        asyncio.run(flood(args.flood_port, args.sockets, args.rate))
        return
    print(json.dumps(asyncio.run(measure(args))))


if __name__ == "__main__":
    main()
