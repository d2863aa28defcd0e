"""Java 8 ``HashMap``/``HashSet`` iteration order, for the ReRelEM outputs.

The official expander keeps a document's graph in a ``HashMap<String, …>``
and every node's relations in a ``HashSet<Relation>``; the order of the
CORELs it writes, of the triples, and (through the evaluator's first
match) which golden relation a system relation is scored against follow
their iteration order (docs/spec/rerelem.md, "Java hash order").  This
module reproduces it: a table of 2^k buckets (16 by default, or
``tableSizeFor(n)`` for ``new HashMap(n)``), bucket ``(h ^ (h >>> 16)) &
(n - 1)``, chains in insertion order, doubling when the size passes 3/4 of
the buckets (an order-preserving split) or when a chain reaches 9 entries
in a table of fewer than 64 buckets (``treeifyBin`` resizes instead).
A chain of 9 or more in a larger table becomes a tree in Java, whose
order is not emulated (no ReRelEM input we know reaches it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from functools import lru_cache
from typing import Generic, TypeVar

from harem_pipeline.text.java import java_string_hash

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_CAPACITY = 16
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64

string_hash = lru_cache(maxsize=1 << 16)(java_string_hash)
"""``String.hashCode``, remembered: the same IDs and types recur on every relation."""


def int32(value: int) -> int:
    """``value`` wrapped to a signed 32-bit Java ``int``."""
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def table_size_for(n: int) -> int:
    """Java's ``HashMap.tableSizeFor``: the least power of two ≥ ``n`` (1 for 0)."""
    size = 1
    while size < n:
        size *= 2
    return size


class JavaHashMap(Generic[K, V]):
    """A map whose iteration follows a Java 8 ``HashMap`` fed the same puts.

    ``hash_of`` is the keys' Java ``hashCode``; ``initial`` None is ``new
    HashMap()`` (16 buckets), an int ``n`` is ``new HashMap(n)``.  Putting
    a key already present replaces its value in place, as Java does.
    """

    __slots__ = ("_hash_of", "_items", "_hashes", "_buckets", "_capacity", "_chains", "_order")

    def __init__(self, hash_of: Callable[[K], int], initial: int | None = None) -> None:
        self._hash_of = hash_of
        self._items: dict[K, V] = {}
        self._hashes: dict[K, int] = {}
        self._buckets: dict[K, int] = {}
        self._capacity = DEFAULT_CAPACITY if initial is None else table_size_for(initial)
        self._chains: dict[int, int] = {}
        self._order: list[K] | None = []

    def _bucket(self, spread: int) -> int:
        return spread & (self._capacity - 1)

    def _resize(self) -> None:
        self._capacity *= 2
        mask = self._capacity - 1
        buckets = {key: spread & mask for key, spread in self._hashes.items()}
        chains: dict[int, int] = {}
        for bucket in buckets.values():
            chains[bucket] = chains.get(bucket, 0) + 1
        self._buckets = buckets
        self._chains = chains

    def put(self, key: K, value: V) -> bool:
        """Map ``key`` to ``value``; True when the key is new."""
        if key in self._items:
            self._items[key] = value
            return False
        h = self._hash_of(key) & 0xFFFFFFFF
        spread = h ^ (h >> 16)
        self._items[key] = value
        self._hashes[key] = spread
        bucket = self._bucket(spread)
        self._buckets[key] = bucket
        chain = self._chains.get(bucket, 0) + 1
        self._chains[bucket] = chain
        if chain > TREEIFY_THRESHOLD and self._capacity < MIN_TREEIFY_CAPACITY:
            self._resize()
        if len(self._items) > self._capacity * 3 // 4:
            self._resize()
        self._order = None
        return True

    def get(self, key: K) -> V | None:
        """The value of ``key``, None when absent."""
        return self._items.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[K]:
        """The keys in Java iteration order (bucket by bucket, chains in insertion order)."""
        if self._order is None:
            self._order = sorted(self._items, key=self._buckets.__getitem__)
        return self._order

    def values(self) -> list[V]:
        """The values in Java iteration order."""
        items = self._items
        return [items[key] for key in self.keys()]

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())


class JavaHashSet(JavaHashMap[K, None]):
    """A set whose iteration follows a Java 8 ``HashSet`` (a ``HashMap`` of its elements)."""

    __slots__ = ()

    def add(self, key: K) -> bool:
        """Add ``key``; True when it was not there (``HashSet.add``)."""
        return self.put(key, None)
