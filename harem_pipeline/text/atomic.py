"""Atomic file writes: a killed process never leaves a half file in place.

Everything the product writes goes through ``atomic_write``: the content is
written to a temporary file in the same folder and renamed over the target
with ``os.replace``, which is atomic on POSIX file systems.

A killed process (even by SIGKILL) never loses what it wrote: the data is in
the kernel's page cache, and the rename is atomic, so the target is the old
file or the whole new one.  Writes are not flushed to the disk one by one
(``fsync``): that guards only against the machine itself stopping (power
loss, a kernel panic), and where that matters, a campaign's record of
finished work, :func:`sync_to_disk` flushes a stage's outputs once, before
the manifest that declares them complete is written.

Only a regular file (or a name not taken yet) is replaced so.  A symbolic
link is kept: the file it points to is the one replaced, atomically, in
its own folder.  A target that is not a regular file (a FIFO, a character
device such as ``/dev/null``, ``/dev/stdout`` and whatever lives under
``/proc``) is opened and written in place, as a plain ``open`` would, and
``-`` means standard output: renaming a file over those would turn a pipe
or a device into a file.
"""

from __future__ import annotations

import glob
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
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
    if str(path) == "-":
        with _standard_output(mode, encoding, newline) as handle:
            yield handle
        return
    target = Path(path)
    if _written_in_place(target):
        with _open_in_place(target, mode, encoding, newline) as handle:
            yield handle
        return
    if target.is_symlink():
        target = Path(os.path.realpath(target))  # replace the file the link points to
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
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def written_in_place(path: str | os.PathLike[str]) -> bool:
    """Whether ``atomic_write`` writes ``path`` in place (``-``, a pipe, a device): no
    temporary file then, so what is written cannot be taken back."""
    return str(path) == "-" or _written_in_place(Path(path))


def _written_in_place(target: Path) -> bool:
    """Whether ``target`` exists and is not a regular file (or is one only through /proc)."""
    try:
        mode = os.stat(target).st_mode  # through links
    except OSError:
        return False  # not there (or a dangling link): made as a regular file
    return not stat.S_ISREG(mode) or _through_descriptors(target)


def _through_descriptors(target: Path) -> bool:
    """Whether ``target`` is, or links through, ``/proc`` or ``/dev/fd``.

    ``/dev/stdout`` leads to ``/proc/self/fd/1``: the process's own
    descriptor, to be written as it is, even when a shell redirected it to
    a regular file (whose name may not even exist any more).
    """
    path = os.path.abspath(target)
    for _ in range(40):  # the kernel's own limit on links followed
        if path.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(path):
            return False
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    return False


@contextmanager
def _open_in_place(target: Path, mode: str, encoding: str | None, newline: str | None):
    if "b" in mode:
        with open(target, mode) as handle:
            yield handle
    else:
        with open(target, mode, encoding=encoding, newline=newline) as handle:
            yield handle


@contextmanager
def _standard_output(mode: str, encoding: str | None, newline: str | None):
    """Standard output as a binary or text handle in ``encoding``, left open afterwards."""
    sys.stdout.flush()
    raw = sys.stdout.buffer
    if "b" in mode:
        yield raw
        raw.flush()
        return
    handle = io.TextIOWrapper(raw, encoding=encoding, newline=newline, write_through=True)
    try:
        yield handle
        handle.flush()
    finally:
        handle.detach()  # standard output stays open


def _umask() -> int:
    """The process's umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def sync_to_disk(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Flush files, and the folders that name them, to the disk (``fsync``).

    For what must survive the machine stopping: a file renamed into place is
    durable once its data and its folder's entry are.
    """
    folders: set[str] = set()
    for path in paths:
        real = os.path.realpath(path)
        if not stat.S_ISREG(os.stat(real).st_mode):
            continue  # a pipe or a device: nothing of ours to flush
        _fsync_path(real, os.O_RDONLY)
        folders.add(os.path.dirname(real))
    for folder in sorted(folders):
        _fsync_path(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))


def _fsync_path(path: str, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
