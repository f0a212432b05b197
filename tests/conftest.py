"""Shared by every test run: the tests marked ``slow`` start first.

``./run test`` spreads the tests over the cores (pytest-xdist, ``--dist worksteal``): a
worker that runs out of tests takes half of what is still queued on a busy one. A test
that is running cannot be split, so a long test started last would keep the run waiting
while the other workers idle; started first, the long tests run beside the short ones.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # a stable sort: the slow tests first, each group in the order collected
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
