"""Small pieces of Java behaviour the reference outputs depend on.

The official 2010 programs were written in Java; where their output order
or text comes from a Java library rule (``String.trim``, ``hashCode``, the
iteration order of a ``HashMap``/``HashSet``), our stages reproduce it
through these functions, so each rule is written once.

The ``HashMap`` here is the one emulation of Java 8's table, fed the same
puts: 2^k buckets (16 by default, or ``tableSizeFor(n)`` for ``new
HashMap(n)``), bucket ``(h ^ (h >>> 16)) & (n - 1)``, chains in insertion
order, doubling when the size passes 3/4 of the buckets with an
order-preserving split.  A chain reaching 9 entries resizes a table of
fewer than 64 buckets, and in a larger one becomes a red-black tree
(``TreeNode``): iteration still follows the bin's linked order, but the
tree's root is moved to the front of it, a new entry goes right after its
tree parent, and a resize splits the bin (back to a chain at 6 entries or
fewer).  All of that is emulated; only ties between equal hash codes in a
tree (ordered by ``System.identityHashCode``) are not.  The aligner's and
Véus's orders (:func:`java_hash_order`) and ReRelEM's graphs
(docs/spec/rerelem.md, "Java hash order") all iterate it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from functools import lru_cache
from typing import Any, Generic, TypeVar

T = TypeVar("T", bound=Hashable)


JAVA_BLANKS = "".join(map(chr, range(0x21)))
"""What Java's ``String.trim`` strips: every character up to U+0020."""


def java_trim(text: str) -> str:
    """Strip characters up to U+0020 at both ends (Java ``String.trim``)."""
    return text.strip(JAVA_BLANKS)


def java_string_hash(text: str | None) -> int:
    """Java ``String.hashCode`` (a signed 32-bit number; 0 for ``null``), over UTF-16 units."""
    if text is None:
        return 0
    value = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        value = (31 * value + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def java_hash_order(
    keys: Iterable[T],
    hash_of: Callable[[Any], int] = java_string_hash,
    size: int | None = None,
) -> list[T]:
    """``keys`` in the order a Java 8 ``HashMap``/``HashSet`` iterates them.

    ``hash_of`` is the keys' Java ``hashCode`` (strings' by default).
    Duplicates keep their first place.  ``size`` is the largest number of
    entries the table ever held (it never shrinks): the table starts as
    large as those entries made it; by default it grows with the keys.
    """
    table: JavaHashMap[T, None] = JavaHashMap(hash_of, _grown_capacity(size))
    for key in keys:
        table.put(key, None)
    return table.keys()


def _grown_capacity(size: int | None) -> int | None:
    """The buckets of a default table after ``size`` puts (None: a new table)."""
    if size is None:
        return None
    capacity = DEFAULT_CAPACITY
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def java_split_bar(value: str | None) -> list[str]:
    """``value.split("\\\\|")`` in Java: trailing empty strings removed, ``""`` → ``[""]``."""
    if value is None:
        return []
    if "|" not in value:
        return [value]
    parts = value.split("|")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_CAPACITY = 16
TREEIFY_THRESHOLD = 8
UNTREEIFY_THRESHOLD = 6
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


class _TreeNode:
    """A ``HashMap.TreeNode``: red-black links; the bin's linked order is kept by the bin."""

    __slots__ = ("key", "hash", "left", "right", "parent", "red")

    def __init__(self, key: object, spread: int) -> None:
        self.key = key
        self.hash = int32(spread)  # Java compares the stored hash as a signed int
        self.left: _TreeNode | None = None
        self.right: _TreeNode | None = None
        self.parent: _TreeNode | None = None
        self.red = False


_OTHER_SIDE = {"left": "right", "right": "left"}


def _rotate(root: _TreeNode, p: _TreeNode, toward: str) -> _TreeNode:
    """``TreeNode.rotateLeft``/``rotateRight`` as one: ``p``'s child on the other side rises.

    The two Java methods are mirror images; ``toward`` ("left" or "right") names the side
    ``p`` goes down to, so one body holds both.
    """
    away = _OTHER_SIDE[toward]
    r = getattr(p, away)
    if r is not None:
        inner = getattr(r, toward)
        setattr(p, away, inner)
        if inner is not None:
            inner.parent = p
        pp = r.parent = p.parent
        if pp is None:
            root = r
            r.red = False
        elif getattr(pp, toward) is p:
            setattr(pp, toward, r)
        else:
            setattr(pp, away, r)
        setattr(r, toward, p)
        p.parent = r
    return root


def _balance_insertion(root: _TreeNode, x: _TreeNode) -> _TreeNode:
    """``TreeNode.balanceInsertion`` line for line, its two mirrored halves as one.

    ``near`` is the side of the grandparent the parent hangs on; the Java's first half is
    ``near == "left"``, its second the mirror image.
    """
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        near = "left" if xp is xpp.left else "right"
        far = _OTHER_SIDE[near]
        uncle = getattr(xpp, far)
        if uncle is not None and uncle.red:
            uncle.red = False
            xp.red = False
            xpp.red = True
            x = xpp
        else:
            if x is getattr(xp, far):
                x = xp
                root = _rotate(root, x, near)
                xp = x.parent
                xpp = None if xp is None else xp.parent
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate(root, xpp, far)


class _TreeBin:
    """A treeified bin: the tree and the linked order iteration follows."""

    __slots__ = ("order", "root")

    def __init__(self, keys: list, spreads: dict) -> None:
        """``treeify``: insert the chain's entries in its order, then the root goes first."""
        self.order = list(keys)
        self.root: _TreeNode | None = None
        nodes = [_TreeNode(key, spreads[key]) for key in keys]
        for x in nodes:
            if self.root is None:
                x.red = False
                self.root = x
                continue
            p = self.root
            while True:
                dir_ = -1 if p.hash > x.hash else 1 if p.hash < x.hash else -1
                xp = p
                child = p.left if dir_ <= 0 else p.right
                if child is None:
                    x.parent = xp
                    if dir_ <= 0:
                        xp.left = x
                    else:
                        xp.right = x
                    self.root = _balance_insertion(self.root, x)
                    break
                p = child
        self._root_to_front()

    def _root_to_front(self) -> None:
        root = self.root
        if root is not None and self.order[0] != root.key:
            self.order.remove(root.key)
            self.order.insert(0, root.key)

    def insert(self, key: object, spread: int) -> None:
        """``putTreeVal`` of a new key: a leaf of the tree, right after its parent in the order."""
        x = _TreeNode(key, spread)
        root = self.root
        assert root is not None
        p = root
        while True:
            dir_ = -1 if p.hash > x.hash else 1 if p.hash < x.hash else -1
            xp = p
            child = p.left if dir_ <= 0 else p.right
            if child is None:
                if dir_ <= 0:
                    xp.left = x
                else:
                    xp.right = x
                x.parent = xp
                self.order.insert(self.order.index(xp.key) + 1, key)
                self.root = _balance_insertion(root, x)
                self._root_to_front()
                return
            p = child


class JavaHashMap(Generic[K, V]):
    """A map whose iteration follows a Java 8 ``HashMap`` fed the same puts.

    ``hash_of`` is the keys' Java ``hashCode``; ``initial`` None is ``new
    HashMap()`` (16 buckets), an int ``n`` is ``new HashMap(n)``.  Putting
    a key already present replaces its value in place, as Java does.
    """

    __slots__ = ("_hash_of", "_items", "_spreads", "_capacity", "_table", "_order")

    def __init__(self, hash_of: Callable[[K], int], initial: int | None = None) -> None:
        self._hash_of = hash_of
        self._items: dict[K, V] = {}
        self._spreads: dict[K, int] = {}
        self._capacity = DEFAULT_CAPACITY if initial is None else table_size_for(initial)
        self._table: dict[int, list | _TreeBin] = {}
        self._order: list[K] | None = []

    def _split(self, keys: list[K], index: int, old: int) -> dict[int, list[K]]:
        low = [key for key in keys if not self._spreads[key] & old]
        high = [key for key in keys if self._spreads[key] & old]
        return {i: part for i, part in ((index, low), (index + old, high)) if part}

    def _resize(self) -> None:
        old = self._capacity
        self._capacity *= 2
        table: dict[int, list | _TreeBin] = {}
        for index, bin_ in self._table.items():
            if isinstance(bin_, list):
                table.update(self._split(bin_, index, old))
                continue
            parts = self._split(bin_.order, index, old)
            for i, keys in parts.items():
                if len(keys) <= UNTREEIFY_THRESHOLD:
                    table[i] = keys
                elif len(parts) == 1:
                    table[i] = bin_  # every entry stayed: the same tree
                else:
                    table[i] = _TreeBin(keys, self._spreads)
        self._table = table

    def put(self, key: K, value: V) -> bool:
        """Map ``key`` to ``value``; True when the key is new."""
        if key in self._items:
            self._items[key] = value
            return False
        h = self._hash_of(key) & 0xFFFFFFFF
        spread = h ^ (h >> 16)
        self._items[key] = value
        self._spreads[key] = spread
        index = spread & (self._capacity - 1)
        bin_ = self._table.get(index)
        if bin_ is None:
            self._table[index] = [key]
        elif isinstance(bin_, _TreeBin):
            bin_.insert(key, spread)
        else:
            bin_.append(key)
            if len(bin_) > TREEIFY_THRESHOLD:
                if self._capacity < MIN_TREEIFY_CAPACITY:
                    self._resize()
                else:
                    self._table[index] = _TreeBin(bin_, self._spreads)
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
        """The keys in Java iteration order (bucket by bucket, each bin in its linked order)."""
        if self._order is None:
            order: list[K] = []
            table = self._table
            for index in sorted(table):
                bin_ = table[index]
                order.extend(bin_ if isinstance(bin_, list) else bin_.order)
            self._order = order
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
