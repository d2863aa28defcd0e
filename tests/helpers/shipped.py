"""The shipped collections, each read once per test process.

Many tests start from the same shipped collection (a campaign's first
documents, a perfect run, the other side of an alignment); reading it is
not what they test.  A :class:`~harem_pipeline.model.Collection` is frozen
all the way down (tuples of frozen documents), so one reading can be handed
to every test: none can change it for the next.
"""

from __future__ import annotations

import functools
from pathlib import Path

from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.model import Collection


@functools.cache
def shipped_collection(path: Path) -> Collection:
    """``read_collection(path)``, read on the first call and shared after it."""
    return read_collection(path)
