"""A keyed store that keeps its values in memory up to a budget and pickles the rest to disk.

The aligner reads the collection ahead of the run when their orders differ
(or when the run lacks documents): those documents wait here by DOCID, in
the order they were read.  Holding them all would make memory grow with
the collection, so past ``budget`` (measured by ``size`` of each value) a
value is pickled to one anonymous temporary file and read back when taken.
The store is I/O, which is why it lives here and not in a stage.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Generic, TypeVar

V = TypeVar("V")


class SpillingStore(Generic[V]):
    """Values by key, in the order first put; the first ``budget`` units in memory, the rest
    pickled to a temporary file (``close`` removes it)."""

    def __init__(self, budget: int, size: Callable[[V], int]) -> None:
        self._order: dict[str, None] = {}  # every key, in the order first put
        self._held: dict[str, V] = {}
        self._spilled: dict[str, tuple[int, int]] = {}  # offset and length in ``_spill``
        self._budget = budget
        self._size = size
        self._used = 0
        self._spill: IO[bytes] | None = None

    def __contains__(self, key: str) -> bool:
        return key in self._order

    def __len__(self) -> int:
        return len(self._order)

    def keys(self) -> list[str]:
        return list(self._order)

    def put(self, key: str, value: V) -> None:
        """Store ``value``; a key already present keeps its place (as a dict does)."""
        old = self._held.pop(key, None)
        if old is not None:
            self._used -= self._size(old)
        self._spilled.pop(key, None)
        self._order[key] = None
        size = self._size(value)
        if self._used + size <= self._budget:
            self._held[key] = value
            self._used += size
            return
        if self._spill is None:
            self._spill = tempfile.TemporaryFile()
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._spill.seek(0, os.SEEK_END)
        self._spilled[key] = (self._spill.tell(), len(data))
        self._spill.write(data)

    def pop(self, key: str) -> V | None:
        """The value of ``key``, removed, or None when there is none."""
        if key not in self._order:
            return None
        del self._order[key]
        value = self._held.pop(key, None)
        if value is not None:
            self._used -= self._size(value)
            return value
        offset, length = self._spilled.pop(key)
        assert self._spill is not None
        self._spill.seek(offset)
        loaded: V = pickle.loads(self._spill.read(length))
        return loaded

    def drain(self) -> Iterator[V]:
        """Every value left, in the order put, removing each."""
        for key in list(self._order):
            value = self.pop(key)
            if value is not None:
                yield value

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()
