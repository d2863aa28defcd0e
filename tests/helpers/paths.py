"""Where the test data lives: the shipped ``data/`` and an optional shared data folder."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

SHARED_DATA_VARIABLE = "HAREM_SHARED_DATA"


def shared_data() -> Path:
    """The full HAREM data folder (LÂMPADA 2.0 package and more), which does not ship.

    ``$HAREM_SHARED_DATA`` when set, otherwise ``shared/data`` in the folder
    that holds the checkout.  The caller checks that it exists.
    """
    configured = os.environ.get(SHARED_DATA_VARIABLE)
    return Path(configured) if configured else ROOT.parent / "shared" / "data"
