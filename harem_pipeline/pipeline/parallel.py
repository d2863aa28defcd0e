"""An ordered map over worker processes that behaves like the plain loop it replaces.

The aligner's document pairs are independent, so they can be aligned on
every core while the parent reads the next ones.  ``ordered_map(func,
items, workers)`` yields ``func(item)`` for each item, in the items' order,
and keeps the plain loop's behaviour where it shows:

* the first failure in item order wins: a ``func`` that fails on item k is
  raised before anything the reading of item k+1 raises (the parent reads
  ahead while the workers run, so its own error is held until every
  earlier item is done);
* at most ``window`` items are in flight, so memory stays flat;
* with one worker, one item, in a daemon process (which may not have
  children) or beside other threads that are not daemon helpers (forking
  then is unsafe) it is the plain loop, in this process.

An ``InputError`` raised in a worker comes back as itself (its fields are
carried over, since its constructor does not take its message back).

The process machinery (``multiprocessing``, ``concurrent.futures``: some
17 ms to load, a tenth of a record command's start) is imported where a
pool starts, the one place below the CLI an import waits: a command on a
small file, which starts no pool, does not load it.  A job apart
(:func:`apart`) needs none of it: a bare fork and a pipe.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeVar

from harem_pipeline.errors import InputError

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")

# Items in flight per worker: enough to keep every worker busy, few enough
# that memory does not grow with the input.
_PER_WORKER = 3


def available_workers() -> int:
    """The cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def worker_count(workers: int | None) -> int:
    """The number of workers ``workers`` asks for: None is every core."""
    return available_workers() if workers is None else workers


def _can_fork() -> bool:
    """Whether worker processes may be forked from here.

    Not from a daemon process (it may have no children), and not while a
    thread other than daemon helpers (a progress bar's monitor, a
    scheduler's keep-alive) runs: one that holds a lock while the process is
    forked could leave it held in the worker.
    """
    main = threading.main_thread()
    return (
        hasattr(os, "fork")
        and not _in_daemon_process()
        and threading.current_thread() is main
        and all(thread is main or thread.daemon for thread in threading.enumerate())
    )


def _in_daemon_process() -> bool:
    """Whether this process is a daemon process of ``multiprocessing``'s; one that has not
    loaded ``multiprocessing`` was not started by it."""
    started = sys.modules.get("multiprocessing")
    return started is not None and bool(started.current_process().daemon)


def uses_workers(workers: int | None = None) -> bool:
    """Whether :func:`ordered_map` with ``workers`` runs two items or more on worker processes."""
    return worker_count(workers) >= 2 and _can_fork()


class _Failure:
    """An ``InputError`` raised in a worker, as plain fields that pickle."""

    def __init__(self, error: InputError) -> None:
        self.fields = (error.path, error.expected, error.found, error.line, error.docid)

    def raise_again(self) -> NoReturn:
        path, expected, found, line, docid = self.fields
        raise InputError(path, expected, found, line=line, docid=docid)


def _call(func: Callable[[T], R], item: T) -> R | _Failure:
    try:
        return func(item)
    except InputError as error:
        return _Failure(error)


def _result(future: Future[R | _Failure]) -> R:
    value = future.result()
    if isinstance(value, _Failure):
        value.raise_again()
    return value


def ordered_map(
    func: Callable[[T], R], items: Iterable[T], workers: int | None = None
) -> Iterator[R]:
    """``func`` over ``items`` in order, on ``workers`` processes (default: every core).

    Items and results cross process boundaries by pickling; ``func`` is
    handed to each worker once, as it is forked (:func:`_install`), so
    what it holds (a partial's arguments) is not pickled with every item.
    """
    workers = worker_count(workers)
    iterator = iter(items)
    first = next(iterator, _END)
    if first is _END:
        return
    if workers < 2 or not _can_fork():
        yield func(first)
        for item in iterator:
            yield func(item)
        return
    second = _Deferred(iterator)
    if second.item is _END:
        yield func(first)
        second.reraise()
        return
    yield from _pooled(func, first, second.item, iterator, workers)


class _End(Enum):
    """The end of the items (a sentinel with a type of its own)."""

    END = "end"


_END: Literal[_End.END] = _End.END


class _Deferred(Generic[T]):
    """The next item (``_END`` at the end or after an error), or the exception reading
    it raised (kept for later)."""

    def __init__(self, iterator: Iterator[T]) -> None:
        self.item: T | Literal[_End.END] = _END
        self.error: BaseException | None = None
        try:
            self.item = next(iterator, _END)
        except Exception as error:  # re-raised once earlier items are done
            self.error = error

    def reraise(self) -> None:
        if self.error is not None:
            raise self.error


_installed: Callable[[Any], Any] | None = None
"""The function of the pool this worker process belongs to (:func:`_install`)."""


def _install(func: Callable[[Any], Any]) -> None:
    """Make ``func`` the worker's function: given once, when the worker is forked (not
    pickled), instead of with every item."""
    global _installed
    _installed = func


def _call_installed(item: T) -> Any:
    if _installed is None:  # not a worker of ``_pooled``'s pool
        raise RuntimeError("no function installed in this process")
    return _call(_installed, item)


def _pooled(
    func: Callable[[T], R], first: T, second: T, iterator: Iterator[T], workers: int
) -> Iterator[R]:
    import multiprocessing  # the process machinery, loaded when a pool starts (module doc)
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    window = workers * _PER_WORKER
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_install, initargs=(func,)
    ) as pool:
        pending: deque[Future[R | _Failure]] = deque()
        try:
            with _frozen_for_forks():  # the workers are forked as the first item goes
                pending.append(pool.submit(_call_installed, first))
            pending.append(pool.submit(_call_installed, second))
            while True:
                while len(pending) >= window:
                    yield _result(pending.popleft())
                following = _Deferred(iterator)
                if following.item is _END:
                    while pending:
                        yield _result(pending.popleft())
                    following.reraise()
                    return
                pending.append(pool.submit(_call_installed, following.item))
        finally:
            for future in pending:
                future.cancel()


@contextlib.contextmanager
def _frozen_for_forks() -> Iterator[None]:
    """The objects of this process frozen while children are forked from it: a child's
    collector then never walks them, so the pages they lie on stay shared instead of
    being copied into the child (up to half a child's time on a small file).  This
    process's collector sees them again afterwards; a child keeps them frozen."""
    parent = os.getpid()
    gc.freeze()
    try:
        yield
    finally:
        if os.getpid() == parent:
            gc.unfreeze()


def apart(job: Callable[[], R], workers: int | None = None) -> Callable[[], R]:
    """Start ``job()`` in a forked process; the function returned waits for its value.

    So a costly part of a report (a bootstrap) runs on a spare core while
    the parent writes the rest, or a file is read while the parent loads
    what reports on it.  With fewer than two ``workers`` (default: every
    core), or where forking is unsafe (:func:`uses_workers`), ``job`` runs
    here, at once.  An ``InputError`` comes back as itself; any other failure
    of the job as a ``RuntimeError`` naming it.

    The child is a bare ``os.fork`` that pickles its answer into a pipe and
    leaves by ``os._exit``: none of the process machinery is loaded for it
    (module doc), and the child may itself start workers.
    """
    if not uses_workers(workers) or not _flushed():
        result = job()
        return lambda: result
    receiving, sending = os.pipe()
    with _frozen_for_forks():
        pid = os.fork()
    if pid == 0:  # the child: answer, and leave without the parent's exit handlers
        os.close(receiving)
        try:
            _send_answer(job, sending)
        finally:
            os._exit(0)
    os.close(sending)
    answers: list[Any] = []  # the child's answer, read once: asked again, the same outcome

    def wait() -> R:
        if not answers:
            with os.fdopen(receiving, "rb") as pipe:
                received = pipe.read()
            status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            # a one-item tuple, whatever the value (None too); nothing if the child died
            answers.extend(
                pickle.loads(received) if received else [_Crash(f"ended with exit status {status}")]
            )
        answer = answers[0]
        if isinstance(answer, _Failure):
            answer.raise_again()
        if isinstance(answer, _Crash):
            raise RuntimeError(f"{job!r} {answer.reason}")
        return answer

    return wait


def spread(func: Callable[[T], R], items: Sequence[T], workers: int | None = None) -> Iterator[R]:
    """``func`` over a few ``items`` in order: the first here, each other at once in a
    process forked for it (:func:`apart`), so no pool is started (module doc).

    For as many items as there are workers: a small file's blocks.  The
    first failure in item order wins, as in :func:`ordered_map`; the
    processes of the items after it are waited for, not left behind.  With one
    worker, or where forking is unsafe, it is the plain loop.
    """
    if not uses_workers(workers):
        yield from map(func, items)
        return
    pending = [apart(functools.partial(func, item), workers) for item in items[1:]]
    try:
        if items:
            yield func(items[0])
        for wait in pending:
            yield wait()
    finally:
        for wait in pending:
            with contextlib.suppress(Exception):
                wait()


def _flushed() -> bool:
    """Flush the standard streams (else a forked child writes out their buffers again);
    False when one cannot be (closed, or a broken pipe)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


class _Crash:
    """Why a job run apart gave no value (pickles as plain text)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _send_answer(job: Callable[[], Any], sending: int) -> None:
    try:
        answer = _call(lambda _: job(), None)
        data = pickle.dumps((answer,), pickle.HIGHEST_PROTOCOL)
    except BaseException as error:  # noqa: BLE001 - any failure is told to the parent
        data = pickle.dumps((_Crash(f"failed: {type(error).__name__}: {error}"),))
    with os.fdopen(sending, "wb") as pipe:
        pipe.write(data)
