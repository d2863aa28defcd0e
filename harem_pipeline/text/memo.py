"""One bounded cache for the decisions a stage takes on a small key.

A stage's answer for a record depends on a small key (an entity's classic
values, the items, the suffix), and nearly every key recurs; the rule is
written once as a pure function of that key and memoised here, so every
input shape goes through the same rule and memory stays flat.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def keyed_cache(maxsize: int = 65536) -> Callable[[F], F]:
    """A decorator remembering the last ``maxsize`` answers of a pure function of
    hashable arguments (``functools.lru_cache``: exceptions are not remembered)."""

    def decorate(function: F) -> F:
        return cast(F, lru_cache(maxsize=maxsize)(function))

    return decorate
