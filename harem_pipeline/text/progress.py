"""Progress bars for long stages: on at a terminal, off otherwise or when asked.

tqdm decides by itself whether standard error is a terminal
(``disable=None``); ``set_quiet`` turns bars off everywhere, through an
environment variable so that Luigi's worker processes inherit the choice.
tqdm itself (which imports ``importlib.metadata``) is imported only when a
bar may be shown: quiet, or with standard error not a terminal, no bar is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from tqdm import tqdm

T = TypeVar("T")
QUIET_VARIABLE = "HAREM_QUIET"


def set_quiet() -> None:
    """Silence every progress bar of this process and its children."""
    os.environ[QUIET_VARIABLE] = "1"


def is_quiet() -> bool:
    return os.environ.get(QUIET_VARIABLE, "") not in ("", "0")


def progress(iterable: Iterable[T], desc: str, unit: str, total: int | None = None) -> Iterator[T]:
    """``iterable`` with a progress bar on standard error when that is a terminal."""
    if not _may_show():
        return iter(iterable)
    from tqdm import tqdm

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


def _may_show() -> bool:
    """Whether tqdm (``disable=None``: on at a terminal) could show a bar at all."""
    if is_quiet():
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _NoBar:
    """What :func:`progress_counter` gives when no bar is shown."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_counter(desc: str, unit: str) -> tqdm | _NoBar:
    """A progress bar advanced by hand (``update(n)``, then ``close()``), for chunked reading."""
    if not _may_show():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(
        desc=desc,
        unit=unit,
        leave=False,
        disable=True if is_quiet() else None,
        mininterval=0.5,
    )
