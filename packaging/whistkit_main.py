"""The bundle's entry point: PyInstaller makes this file the ``whistkit`` program
(packaging/bundle.py; the program itself is :mod:`whistkit.bundled`)."""

import multiprocessing
import sys

from whistkit.bundled import main

if __name__ == "__main__":
    # the bots' worker processes start this same program: let them run their work
    multiprocessing.freeze_support()
    sys.exit(main())
