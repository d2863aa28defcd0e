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
``/proc``) is written in place, and ``-`` means standard output: renaming
a file over those would turn a pipe or a device into a file.  What goes
there is first written to an anonymous temporary file and copied once the
writer is done, so a pipe gets what a file would, byte for byte: nothing
from a writer that fails (a FIFO's reader then sees the end at once), and
a writer that starts over (a stage's fast path falling back to its general
reader) is not heard twice.  The target is opened once, at the end: a FIFO
opened twice would leave the writer waiting for a reader that has gone.
"""

from __future__ import annotations

import errno
import glob
import io
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from harem_pipeline.errors import OutputError
from harem_pipeline.text import PathLike


@contextmanager
def atomic_write(
    path: PathLike,
    mode: str = "w",
    encoding: str | None = "utf-8",
    newline: str | None = "",
) -> Iterator[IO]:
    """Open a temporary sibling of ``path`` for writing; rename it into place on success.

    ``newline=""`` by default so that the text written is the text stored:
    HAREM files keep whatever line ends the caller writes.
    """
    with _full_disk_named(path):
        if str(path) == "-" or _written_in_place(Path(path)):
            with _buffered_in_place(str(path), mode, encoding, newline) as handle:
                yield handle
            return
        with _replaced(Path(path), mode, encoding, newline) as handle:
            yield handle


# A disk or a quota that is full, a file too large for it: the output
# cannot be written, whatever the command.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


@contextmanager
def _full_disk_named(path: PathLike) -> Iterator[None]:
    """An ``OSError`` of a full disk while writing ``path`` as an ``OutputError`` naming it.

    (The bare error of a ``write`` names no file; the campaign's tasks
    would each print a traceback.)  Whatever was there before is unchanged.
    """
    try:
        yield
    except OSError as exc:
        if exc.errno not in _NO_ROOM:
            raise
        if written_in_place(path):
            where = "standard output" if str(path) == "-" else str(path)
            raise OutputError(where, f"not written ({exc.strerror})") from None
        problem = f"not written ({exc.strerror}); what was there before is unchanged"
        raise OutputError(str(path), problem) from None


@contextmanager
def _replaced(target: Path, mode: str, encoding: str | None, newline: str | None) -> Iterator[IO]:
    """A temporary sibling of ``target``, renamed over it when the writer is done."""
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


def written_in_place(path: PathLike) -> bool:
    """Whether ``atomic_write`` writes ``path`` in place (``-``, a pipe, a device), not
    by renaming a file over it: such a target is never to be removed."""
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
def _buffered_in_place(
    target: str, mode: str, encoding: str | None, newline: str | None
) -> Iterator[IO]:
    """A temporary file to write; copied to ``target`` (``-``: standard output) on success.

    On failure nothing reaches the target; a FIFO is noted, and its waiting
    reader let go by :func:`release_abandoned` once the command has given
    up (not at once: a writer may start over and write it after all).
    """
    with tempfile.TemporaryFile() as spool:
        text = None if "b" in mode else io.TextIOWrapper(spool, encoding=encoding, newline=newline)
        handle: IO = spool if text is None else text
        try:
            yield handle
            handle.flush()
        except BaseException:
            _abandoned.add(target)
            raise
        finally:
            if text is not None:
                text.detach()  # the spool is closed by its own ``with``
        spool.seek(0)
        _abandoned.discard(target)
        if target == "-":
            destination = standard_output()
            sys.stdout.flush()
            shutil.copyfileobj(spool, destination)
            destination.flush()
        else:
            with open(target, "wb") as destination:
                shutil.copyfileobj(spool, destination)


def standard_output() -> IO[bytes]:
    """The binary standard output; an ``OSError`` naming it when it is closed (``>&-``)."""
    if sys.stdout is None or getattr(sys.stdout, "buffer", None) is None:
        raise OutputError("-", "expected an open standard output, found it closed")
    return sys.stdout.buffer


_abandoned: set[str] = set()
"""In-place targets whose writer failed, not written since (see :func:`release_abandoned`)."""


def release_abandoned() -> None:
    """Let the reader of every FIFO whose writer failed see the end of the file.

    A FIFO is opened only to be written, at the end; when a command fails
    it never is, and a reader waiting on it would wait for ever.  Opening
    it without waiting and closing it gives that reader the end of the
    file; with no reader there, nothing is done.
    """
    for target in sorted(_abandoned):
        try:
            if target != "-" and stat.S_ISFIFO(os.stat(target).st_mode):
                os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass  # no reader (ENXIO), or gone
    _abandoned.clear()


def _umask() -> int:
    """The process's umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def sync_to_disk(paths: Iterable[PathLike]) -> None:
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


def remove_stale_temporaries(path: PathLike) -> int:
    """Delete the temporaries a killed writer of ``path`` left behind; return how many.

    Only names ``atomic_write`` makes for exactly this target match, so the
    temporaries of other files being written in the same folder are safe.
    """
    target = Path(path)
    stale = list(target.parent.glob(f".{glob.escape(target.name)}.{'?' * 8}.tmp"))
    for leftover in stale:
        leftover.unlink(missing_ok=True)
    return len(stale)


def write_text_atomic(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically in ``encoding``."""
    with atomic_write(path, "w", encoding=encoding) as handle:
        handle.write(text)


def write_bytes_atomic(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_write(path, "wb", encoding=None, newline=None) as handle:
        handle.write(data)
