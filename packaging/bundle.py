"""Build the self-contained ``whistkit`` folder and pack it (``./run bundle``).

Run by a Python in which whistkit (not editable) and the ``bundle`` extra are installed,
on the system the bundle is for: Linux gives ``whistkit-VERSION-linux-x86_64.tar.gz``,
Windows ``whistkit-VERSION-windows-amd64.zip``, macOS ``whistkit-VERSION-macos-arm64.tar.gz``
(docs/install.md). The folder holds one ``whistkit`` program, Python, whistkit's
package data (pages, translations, cards, help) and the solver's compiled core.

    python packaging/bundle.py [--dist DIR] [--work DIR] [--allow-no-core]
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
import tarfile
import time
import zipfile
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent

README = """\
whistkit {version}: the félagsvist evening organiser and the whist game

Start it: double-click the program "{program}" in this folder (or run it in a
terminal). A window shows the hall's address and a QR code of it; the organiser opens
in this computer's browser. Phones in the hall join the same Wi-Fi and open that
address (or scan the code). No internet and no Python are needed.

Close the window (or press Ctrl-C in it) to stop. The evenings are kept on this
computer and are there again the next time.

In a terminal: "{program} evening --help" and "{program} play" (the game against bots).
"""


def system_name() -> str:
    """The system and processor in the bundle's name: linux-x86_64, windows-amd64, ..."""
    system = {"win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
    return f"{system}-{platform.machine().lower()}"


def check_core(allow_missing: bool) -> None:
    try:
        import whistkit.solver._dd  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        if not allow_missing:
            sys.exit(
                "bundle: the solver's compiled core (whistkit.solver._dd) is not installed"
                " in this Python; build it first (a C compiler), or pass --allow-no-core"
                " for a bundle whose bots use the slow pure-Python solver"
            )
        print("bundle: no compiled core: the bots use the slow pure-Python solver")


def pyinstaller(work: Path) -> Path:
    """Run PyInstaller; the folder it made."""
    import PyInstaller.__main__

    # without their debugging symbols Python's libraries are half the size
    strip = [] if sys.platform == "win32" else ["--strip"]
    PyInstaller.__main__.run(
        [
            *strip,
            str(HERE / "whistkit_main.py"),
            "--name=whistkit",
            "--onedir",
            "--console",
            "--noconfirm",
            "--clean",
            "--log-level=WARN",
            f"--distpath={work / 'dist'}",
            f"--workpath={work / 'build'}",
            f"--specpath={work}",
            # the pages, translations, cards, help and rules the servers read from files
            "--collect-data=whistkit",
            # imported where first needed: the compiled core, and uvicorn's protocols
            "--hidden-import=whistkit.solver._dd",
            "--collect-submodules=whistkit",
            "--collect-submodules=uvicorn",
            # not for a hall: the reinforcement-learning environments' libraries
            "--exclude-module=whistkit.env",
            "--exclude-module=tkinter",
        ]
    )
    return work / "dist" / "whistkit"


def pack(folder: Path, dist: Path, name: str) -> Path:
    """``folder`` as ``dist/NAME.tar.gz`` (``.zip`` on Windows), holding ``NAME/``."""
    dist.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":
        out = dist / f"{name}.zip"
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(folder.rglob("*")):
                z.write(path, Path(name) / path.relative_to(folder))
        return out
    out = dist / f"{name}.tar.gz"
    with tarfile.open(out, "w:gz") as t:
        t.add(folder, arcname=name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", default="dist", help="where the packed bundle goes")
    parser.add_argument("--work", default="build/bundle", help="PyInstaller's work folder")
    parser.add_argument(
        "--allow-no-core",
        action="store_true",
        help="build without the solver's compiled core (its C does not build with MSVC)",
    )
    args = parser.parse_args()
    check_core(args.allow_no_core)
    start = time.monotonic()
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    folder = pyinstaller(work)
    own = version("whistkit")
    program = "whistkit.exe" if sys.platform == "win32" else "whistkit"
    (folder / "README.txt").write_text(
        README.format(version=own, program=program), encoding="utf-8"
    )
    out = pack(folder, Path(args.dist).resolve(), f"whistkit-{own}-{system_name()}")
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    print(
        f"bundle: {out} ({out.stat().st_size / 1e6:.1f} MB packed, {size / 1e6:.1f} MB"
        f" unpacked, built in {time.monotonic() - start:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
