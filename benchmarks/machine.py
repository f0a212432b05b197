"""One line naming the machine a benchmark ran on: the same code ran at 1.02x and 2.19x
DDS on two machines of "this kind" on consecutive days (docs/solver.md), so every
benchmark's figures say which processor and which build of the solver core made them."""

from __future__ import annotations

import os
import platform
import random
from collections.abc import Callable, Iterator

from whistkit import solver
from whistkit.deal import deal_cards
from whistkit.state import Action, Deal, State, View, new_game


def cpu() -> str:
    """The processor's model name, family and model (from /proc/cpuinfo where there is one)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor says it for all
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        return platform.processor() or platform.machine()
    name = fields.get("model name", platform.machine())
    if "cpu family" in fields:
        name += f" (family {fields['cpu family']}, model {fields.get('model', '?')})"
    return name


def describe() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"machine: {cpu()}, {os.cpu_count()} cores, load {load:.2f};"
        f" solver core: {solver.core_build()}"
    )


def felagsvist_decisions(
    rng: random.Random, choose: Callable[[View], Action]
) -> Iterator[tuple[State, View]]:
    """A whole Félagsvist game dealt by ``rng``: each decision's state and view (of the
    seat to act) is yielded, then ``choose(view)`` is played."""
    state = new_game("felagsvist", dealer=rng.randrange(4))
    while not state.is_over:
        if state.needs_deal:
            state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
            continue
        view = state.view(state.to_play)
        yield state, view
        state = state.apply(choose(view))


if __name__ == "__main__":
    print(describe())
