"""The cluster's leases against a real Redis (issue 31): an owner keeps its tables while
its other Redis traffic queues."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import pytest
import redis

from whistkit.server.cluster import HUNG_LEASES, REDIS_CONNECTIONS, Cluster, lease_key

pytestmark = pytest.mark.slow


def test_leases_are_renewed_while_every_pooled_connection_is_busy(redis_server: Any) -> None:
    """A burst of joins can hold every connection of the shared pool (taking leases,
    the admission ledger, relays): the renewals must not queue behind them, or the leases
    lapse and the process lets healthy tables go (2,000 games at once lost hundreds)."""

    async def main() -> tuple[bool, list[str]]:
        cluster = Cluster(redis_server.url, lease_seconds=0.8)
        lost: list[str] = []
        cluster.on_lost = lost.append
        await cluster.start()
        try:
            lease = await cluster.acquire("g1")
            assert not isinstance(lease, str)
            # every pooled connection blocked for 2.5 s (three lease times)
            busy = [
                asyncio.create_task(cluster.redis.blpop([f"wk:test:busy{i}"], timeout=2.5))
                for i in range(REDIS_CONNECTIONS)
            ]
            await asyncio.sleep(2.0)
            valid = cluster.valid("g1")
            await asyncio.gather(*busy)
            return valid, lost
        finally:
            await cluster.close()

    valid, lost = asyncio.run(main())
    assert valid and lost == []


def test_a_busy_event_loop_keeps_its_leases(redis_server: Any) -> None:
    """An event loop late by more than a lease time (a process under a burst: its loop
    did not run for 1.5 lease times) keeps its tables: the leases are renewed from a
    thread of their own while the loop's heartbeat is recent enough."""

    async def main() -> tuple[bool, list[str], str | None]:
        cluster = Cluster(redis_server.url, lease_seconds=2.0)
        lost: list[str] = []
        cluster.on_lost = lost.append
        await cluster.start()
        try:
            lease = await cluster.acquire("g1")
            assert not isinstance(lease, str)
            time.sleep(3.0)  # the loop stands still (1.5 lease times)
            await asyncio.sleep(0.6)  # a keeping round after it
            return cluster.valid("g1"), lost, await cluster.holder("g1")
        finally:
            await cluster.close()

    valid, lost, holder = asyncio.run(main())
    assert valid and lost == []
    assert holder is not None and holder.startswith(socket.gethostname())


def test_a_hung_event_loop_lets_its_leases_lapse(redis_server: Any) -> None:
    """A loop that does not run for more than HUNG_LEASES lease times is hung: its leases
    lapse in Redis (another process may take the tables) and, once it runs again, it lets
    them go."""
    assert HUNG_LEASES * 1.0 < 2.5

    async def main() -> tuple[bytes | None, bool, list[str]]:
        cluster = Cluster(redis_server.url, lease_seconds=1.0)
        lost: list[str] = []
        cluster.on_lost = lost.append
        await cluster.start()
        seen: list[bytes | None] = []
        try:
            lease = await cluster.acquire("g1")
            assert not isinstance(lease, str)
            look = redis.Redis.from_url(redis_server.url)

            def later() -> None:  # what another process sees meanwhile
                time.sleep(3.8)
                seen.append(look.get(lease_key("g1")))

            side = threading.Thread(target=later)
            side.start()
            time.sleep(4.2)  # the loop stands still past HUNG_LEASES lease times
            side.join()
            look.close()
            await asyncio.sleep(0.6)  # a keeping round after it
            return seen[0], cluster.valid("g1"), lost
        finally:
            await cluster.close()

    held, valid, lost = asyncio.run(main())
    assert held is None  # lapsed: free for another process
    assert not valid and lost == ["g1"]
