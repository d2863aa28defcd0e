"""Progress bars for long stages: on at a terminal, off otherwise or when asked.

tqdm decides by itself whether standard error is a terminal
(``disable=None``); ``set_quiet`` turns bars off everywhere, through an
environment variable so that Luigi's worker processes inherit the choice.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")
QUIET_VARIABLE = "HAREM_QUIET"


def set_quiet(quiet: bool = True) -> None:
    """Silence (or allow again) every progress bar of this process and its children."""
    if quiet:
        os.environ[QUIET_VARIABLE] = "1"
    else:
        os.environ.pop(QUIET_VARIABLE, None)


def is_quiet() -> bool:
    return os.environ.get(QUIET_VARIABLE, "") not in ("", "0")


def progress(iterable: Iterable[T], desc: str, unit: str, total: int | None = None) -> Iterator[T]:
    """``iterable`` with a progress bar on standard error when that is a terminal."""
    return iter(
        tqdm(
            iterable,
            desc=desc,
            unit=unit,
            total=total,
            leave=False,
            disable=True if is_quiet() else None,
            mininterval=0.5,
        )
    )
