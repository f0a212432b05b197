"""``pip install whistkit`` without a C compiler (the pure-Python solver stands in and
the bots say so), and the manylinux wheel with the compiled core (``./run wheel``,
docs/install.md). Each builds from a copy of the sources, so that their build folders
meet no other build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

REPO = Path(__file__).resolve().parents[2]


def sources(to: Path) -> Path:
    """A copy of what a source distribution holds: no builds, no compiled core."""
    shutil.copytree(
        REPO,
        to,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.so", "__pycache__", "*.egg-info", ".*_cache"
        ),
    )
    return to


def test_pip_install_without_a_compiler_gives_the_slow_solver_and_says_so(
    tmp_path: Path,
) -> None:
    src = sources(tmp_path / "src")
    target = tmp_path / "site"
    # no compiler: every compile fails, as on a laptop without one
    env = dict(os.environ, CC="/bin/false", CXX="/bin/false", LDSHARED="/bin/false")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), src],
        env=env,
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert not list(target.glob("whistkit/solver/_dd*.so")), "a core was built without a compiler"
    assert (target / "whistkit/evening/static/i18n/is.json").exists()
    run_env = dict(os.environ, PYTHONPATH=str(target))
    version = subprocess.run(
        [sys.executable, "-m", "whistkit", "--version"],
        env=run_env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert version.returncode == 0, version.stderr
    assert "solver core: none (the pure-Python oracle)" in version.stdout
    game = subprocess.run(
        [sys.executable, "-m", "whistkit", "play", "--text", "--seed", "1"],
        env=run_env,
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert "bots use the pure-Python solver and are slower" in game.stderr, game.stderr
    assert "(expert)" not in game.stdout  # the terminal game's default level is club


def test_pip_wheel_gives_a_manylinux_wheel_with_the_core(tmp_path: Path) -> None:
    src = sources(tmp_path / "src")
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, str(src / "packaging" / "wheel.py"), "--dist", str(dist)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    name, ver, python, abi, platform = wheel.name.removesuffix(".whl").split("-")
    assert (name, ver) == ("whistkit", "0.1.0")
    assert python == f"cp{sys.version_info.major}{sys.version_info.minor}" and abi == python
    assert platform.startswith("manylinux_2_") and platform.endswith("_x86_64"), platform
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert any(n.startswith("whistkit/solver/_dd.") and n.endswith(".so") for n in names)
    assert "whistkit/server/static/cards/QH.svg" in names
    assert "whistkit/server/static/help/ru.json" in names
