"""One bounded cache for the decisions a stage takes on a small key."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def keyed_cache(maxsize: int = 65536) -> Callable[[F], F]:
    """Memoise a pure function of hashable arguments, keeping at most ``maxsize`` results.

    A stage's answer depends on a small key (tag heads, an item, a verdict)
    that repeats across hundreds of thousands of records: the rule is called
    once per distinct key and never restated.
    """

    def decorate(function: F) -> F:
        return functools.lru_cache(maxsize)(function)  # type: ignore[return-value]

    return decorate
