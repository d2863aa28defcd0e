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


OTHER_VEILS = ("total_harem.", "total_muc.", "total_relaxado.", "PLO_muc.")
"""Four of the five veils and styles of the real Second HAREM run's reference files
(``data/reference/gabriel``).  They hold the same run's records, written by the same
programs, as its alignment (``run.*``) and its categories scenario (``cenario4_categs_muc.*``)."""


def one_veil_of_the_real_run(paths: list[Path]) -> list[Path]:
    """``paths`` without the real run's files under :data:`OTHER_VEILS`: for the checks of
    how lines are read and written, which those files repeat at five times the cost."""
    return [p for p in paths if p.parent.name != "gabriel" or not p.name.startswith(OTHER_VEILS)]
