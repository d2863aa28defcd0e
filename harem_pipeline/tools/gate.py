"""CI gates: bounds on numbers of a report's JSON (``harem check``).

A bound names a dotted key path into the JSON (``fields.combinada.medida_f``)
and a minimum or maximum.  Checking is pure: it returns the failed bounds
as readable lines, and raises ``InputError`` for what is not a failed bound
but a mistake (a missing key, a value that is not a number, a bad bound).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harem_pipeline.errors import InputError


@dataclass(frozen=True, slots=True)
class Bound:
    """``key >= value`` (kind ``min``) or ``key <= value`` (kind ``max``)."""

    key: str
    kind: str
    value: float

    @property
    def symbol(self) -> str:
        return ">=" if self.kind == "min" else "<="

    def holds(self, actual: float) -> bool:
        return actual >= self.value if self.kind == "min" else actual <= self.value


def parse_bound(text: str, kind: str) -> Bound:
    """Parse ``KEY=VALUE`` as given to ``--min`` / ``--max``."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--{kind}", "KEY=VALUE (e.g. fields.combinada.medida_f=0.5)", text)
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"--{kind} {key}", "a number after '='", repr(value)) from None
    if math.isnan(number):
        raise InputError(f"--{kind} {key}", "a number after '='", repr(value))
    return Bound(key.strip(), kind, number)


def lookup(data: Any, key: str, path: str) -> float | None:
    """The number at the dotted ``key``; None when the value is JSON null (undefined)."""
    current = data
    walked: list[str] = []
    for part in key.split("."):
        walked.append(part)
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            if isinstance(current, Mapping) and current:
                found = "only: " + ", ".join(sorted(current))
            else:
                found = "an empty object" if isinstance(current, Mapping) else "no keys"
            raise InputError(path, f"the key {'.'.join(walked)!r}", found)
    if current is None:
        return None
    if isinstance(current, bool) or not isinstance(current, int | float):
        raise InputError(path, f"a number at {key!r}", f"{type(current).__name__} {current!r}")
    return float(current)


def check_bounds(data: Any, bounds: Iterable[Bound], path: str) -> list[str]:
    """One readable line per failed bound; an undefined (null) value fails every bound."""
    failures = []
    for bound in bounds:
        actual = lookup(data, bound.key, path)
        if actual is None:
            failures.append(
                f"{bound.key} is undefined (null), required {bound.symbol} {bound.value:g}"
            )
        elif not bound.holds(actual):
            failures.append(f"{bound.key} = {actual:.6g}, required {bound.symbol} {bound.value:g}")
    return failures
