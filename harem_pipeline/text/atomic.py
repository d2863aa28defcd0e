"""Atomic file writes: a killed process never leaves a half file in place.

Everything the product writes goes through ``atomic_write``: the content is
written to a temporary file in the same folder and renamed over the target
with ``os.replace``, which is atomic on POSIX file systems.
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def atomic_write(
    path: str | os.PathLike[str],
    mode: str = "w",
    encoding: str | None = "utf-8",
    newline: str | None = "",
) -> Iterator[IO]:
    """Open a temporary sibling of ``path`` for writing; rename it into place on success.

    ``newline=""`` by default so that the text written is the text stored:
    HAREM files keep whatever line ends the caller writes.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    # mkstemp makes the file private (0600); give it the mode a plain open()
    # would, so outputs in a shared campaign folder stay readable by others.
    os.fchmod(fd, 0o666 & ~_umask())
    try:
        if "b" in mode:
            handle = os.fdopen(fd, mode)
        else:
            handle = os.fdopen(fd, mode, encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    """The process's umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def remove_stale_temporaries(path: str | os.PathLike[str]) -> int:
    """Delete the temporaries a killed writer of ``path`` left behind; return how many.

    Only names ``atomic_write`` makes for exactly this target match, so the
    temporaries of other files being written in the same folder are safe.
    """
    target = Path(path)
    stale = list(target.parent.glob(f".{glob.escape(target.name)}.{'?' * 8}.tmp"))
    for leftover in stale:
        leftover.unlink(missing_ok=True)
    return len(stale)


def write_text_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically in ``encoding``."""
    with atomic_write(path, "w", encoding=encoding) as handle:
        handle.write(text)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_write(path, "wb", encoding=None, newline=None) as handle:
        handle.write(data)
