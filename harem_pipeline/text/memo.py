"""One bounded cache for the decisions a stage takes on a small key.

A stage's answer for a record depends on a small key (an entity's classic
values, the items, the suffix, tag heads, a verdict), and nearly every key
recurs; the rule is written once as a pure function of that key and memoised
here, so every input shape goes through the same rule and memory stays flat.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def keyed_cache(maxsize: int = 65536) -> Callable[[F], F]:
    """A decorator remembering the last ``maxsize`` answers of a pure function of
    hashable arguments (``functools.lru_cache``: exceptions are not remembered)."""

    def decorate(function: F) -> F:
        return cast(F, lru_cache(maxsize=maxsize)(function))

    return decorate


class KeyedTable(dict[K, V], Generic[K, V]):
    """``table[key]`` is ``rule(key)``, computed at the first lookup of each key.

    The per-record form of :func:`keyed_cache`: one dictionary lookup in C
    for a key already seen, where a cached call builds its argument tuple
    and walks the cache's order each time.  Bounded the simple way: full at
    ``maxsize`` keys, it starts again empty.  A rule's error is raised, not kept.
    """

    __slots__ = ("rule", "maxsize")

    def __init__(self, rule: Callable[[K], V], maxsize: int = 65536) -> None:
        super().__init__()
        self.rule = rule
        self.maxsize = maxsize

    def __missing__(self, key: K) -> V:
        if len(self) >= self.maxsize:
            self.clear()
        value = self[key] = self.rule(key)
        return value
