"""One bounded cache for the decisions a stage takes on a small key."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def keyed_cache(maxsize: int = 65536) -> Callable[[F], F]:
    """Memoise a pure function of hashable arguments, keeping at most ``maxsize`` results.

    A stage's answer depends on a small key (tag heads, an item, a verdict)
    that repeats across hundreds of thousands of records: the rule is called
    once per distinct key and never restated.
    """

    def decorate(function: F) -> F:
        return functools.lru_cache(maxsize)(function)  # type: ignore[return-value]

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
