"""One line naming the machine a benchmark ran on: the same code ran at 1.02x and 2.19x
DDS on two machines of "this kind" on consecutive days (docs/solver.md), so every
benchmark's figures say which processor and which build of the solver core made them."""

from __future__ import annotations

import os
import platform

from whistkit import solver


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


if __name__ == "__main__":
    print(describe())
