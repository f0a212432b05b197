"""Done-when 4: kill -9 of `whistkit evening` after hand 5 and a restart lose nothing that
a page was told was confirmed, and the evening goes on."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from evening_web.drive import Driver

SRC = Path(__file__).resolve().parents[2] / "src"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start(db: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    # the test's phones are all on 127.0.0.1 (in a hall each has its own address)
    env["WHISTKIT_MAX_CONNECTIONS_PER_CLIENT"] = "10000"
    proc = subprocess.Popen(
        [sys.executable, "-m", "whistkit.cli", "evening", "--port", str(port), "--db", str(db)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"whistkit evening exited with {proc.returncode}: {err}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/static/ev.js", timeout=1)
            return proc
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("whistkit evening did not start in 30 s")


def test_kill_9_after_hand_5_loses_no_confirmed_result(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    port = free_port()
    proc = start(db, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            host = Driver(client)
            host.create({"preset": "felagsvist", "hands": 12})
            host.setup(8, 8, seed=5)
            rng = random.Random(5)
            played = {h: host.play_hand(rng) for h in range(1, 6)}
            # an entry of hand 6 at table 1 that nobody confirmed yet
            st = host.state()
            tb = st["hand_states"][5]["tables"][0]
            path = host.token_path(tb["table"])
            host.post(
                f"{path}/enter", {"hand": 6, "side": "NS", "tricks": 9, "by": tb["seats"]["N"]}
            )
            before = host.state()
            cookies = dict(client.cookies)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

        proc = start(db, port)
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", timeout=10, cookies=cookies
        ) as client:
            host = Driver(client)
            host.id = before["id"]
            after = host.state()
            for h, results in played.items():
                got = {t["table"]: t["result"]["ns"] for t in after["hand_states"][h - 1]["tables"]}
                assert got == results
            assert after["current"]["number"] == 6
            assert after["standings"] == before["standings"]
            assert after["hand_states"][5]["tables"][0]["pending"] == {
                "ns": 9,
                "by": tb["seats"]["N"],
            }
            # the evening goes on: the pending entry is confirmed, the hand completed
            host.post(f"{path}/confirm", {"hand": 6, "by": tb["seats"]["E"], "ns": 9})
            for other in after["hand_states"][5]["tables"][1:]:
                p = host.token_path(other["table"])
                host.post(
                    f"{p}/enter", {"hand": 6, "side": "EW", "tricks": 4, "by": other["seats"]["W"]}
                )
                host.post(f"{p}/confirm", {"hand": 6, "by": other["seats"]["S"], "ns": 9})
            assert host.state()["current"]["number"] == 7
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)
