"""Progress bars for long stages: on at a terminal, off otherwise or when asked.

A bar is drawn only when standard error is a terminal (tqdm's own
``disable=None`` rule, checked here first so that a command writing to a
file or a pipe never imports tqdm, a tenth of a second of start-up);
``set_quiet`` turns bars off everywhere, through an environment variable so
that Luigi's worker processes inherit the choice.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

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
    if is_quiet() or not _is_terminal(sys.stderr):
        return iter(iterable)
    from tqdm import tqdm

    return iter(tqdm(iterable, desc=desc, unit=unit, total=total, leave=False, mininterval=0.5))


def _is_terminal(stream: object) -> bool:
    """tqdm's test for ``disable=None``: a stream without ``isatty`` counts as a terminal."""
    isatty = getattr(stream, "isatty", None)
    return isatty is None or bool(isatty())
