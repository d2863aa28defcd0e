"""Where the official 2010 programs and the shared HAREM data are, when a machine has them.

The benchmarks and the differential checks run the official Java programs
beside ours when they are set up locally (a folder holding their ``hj``
launcher): ``$HAREM_ORACLE``, else ``~/harem-oracle``.  The full shared
collections are found at ``$HAREM_SHARED_DATA``, else ``shared/data`` beside
the checkout.  Neither is needed by the test suite.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def oracle_home() -> Path | None:
    """The folder of the official programs' launcher, or None when there is none."""
    for candidate in (os.environ.get("HAREM_ORACLE"), Path.home() / "harem-oracle"):
        if candidate and (Path(candidate) / "hj").exists():
            return Path(candidate)
    return None


def shared_data() -> Path:
    """The shared HAREM data folder (it may not exist)."""
    return Path(os.environ.get("HAREM_SHARED_DATA") or ROOT.parent / "shared" / "data")
