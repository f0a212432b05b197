"""The cluster's leases against a real Redis (issue 31): an owner keeps its tables while
its other Redis traffic queues."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from whistkit.server.cluster import REDIS_CONNECTIONS, Cluster

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
