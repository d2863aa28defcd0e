"""The ordered map over worker processes behaves as the plain loop it replaces."""

from __future__ import annotations

import gc
import io
import os
import sys
from collections.abc import Iterator

import pytest

from harem_pipeline.errors import InputError
from harem_pipeline.pipeline.parallel import apart, ordered_map, spread, uses_workers


def _square(value: int) -> int:
    return value * value


def _pid(_: int) -> int:
    return os.getpid()


def _fail_at(value: int) -> int:
    if value == 7:
        raise InputError("f.xml", "a good document", "a bad one", line=3, docid="D7")
    return value


def _items(count: int, broken_at: int | None = None) -> Iterator[int]:
    for value in range(count):
        if value == broken_at:
            raise InputError("r.xml", "a readable document", "garbage", line=9)
        yield value


# One worker is the plain loop: no items, one, and more than one take each of its branches.
# Two and three workers: windows of 6 and 9 items in flight, so counts around and past them.
@pytest.mark.parametrize(
    ("count", "workers"),
    [(count, 1) for count in (0, 1, 2)]
    + [(count, workers) for workers in (2, 3) for count in (0, 1, 2, 3, 5, 6, 7, 20, 101)],
)
def test_results_come_in_item_order(count: int, workers: int) -> None:
    assert list(ordered_map(_square, range(count), workers)) == [v * v for v in range(count)]


def test_items_run_in_worker_processes() -> None:
    pids = set(ordered_map(_pid, range(40), 2))
    assert pids and os.getpid() not in pids


def test_one_item_or_one_worker_stays_in_this_process() -> None:
    assert set(ordered_map(_pid, range(1), 2)) == {os.getpid()}
    assert set(ordered_map(_pid, range(30), 1)) == {os.getpid()}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_worker_input_error_comes_back_whole(workers: int) -> None:
    results: list[int] = []
    with pytest.raises(InputError) as caught:
        results.extend(ordered_map(_fail_at, range(30), workers))
    assert (
        str(caught.value) == "f.xml, line 3, document D7: expected a good document, found a bad one"
    )
    assert (caught.value.path, caught.value.line, caught.value.docid) == ("f.xml", 3, "D7")
    assert results == list(range(7))


# One worker is the plain loop: a reading error before item 7 fails (1), or after it (9).
# Two workers: the second item, read ahead (1), a later one before item 7 (2), and reading
# errors after it, near it and far (8, 9, 30).
@pytest.mark.parametrize(
    ("broken_at", "workers"),
    [(1, 1), (9, 1)] + [(broken_at, 2) for broken_at in (1, 2, 8, 9, 30)],
)
def test_the_first_failure_in_item_order_wins(broken_at: int, workers: int) -> None:
    """A reading error after item 7 waits for item 7's own failure, as in the plain loop."""
    results: list[int] = []
    with pytest.raises(InputError) as caught:
        results.extend(ordered_map(_fail_at, _items(40, broken_at), workers))
    expected = "r.xml" if broken_at <= 7 else "f.xml"
    assert caught.value.path == expected
    assert results == list(range(min(broken_at, 7)))


def _bad_document() -> int:
    raise InputError("f.xml", "a good document", "a bad one", line=3, docid="D7")


def _broken() -> int:
    raise ZeroDivisionError("a bug")


@pytest.mark.parametrize(("workers", "elsewhere"), [(1, False), (2, True)])
def test_a_job_apart_gives_its_value_from_another_process(workers: int, elsewhere: bool) -> None:
    pending = apart(os.getpid, workers)
    assert (pending() != os.getpid()) is elsewhere
    assert pending() == pending()  # asked again: the same value, the process long gone


@pytest.mark.parametrize("workers", [1, 2])
def test_a_job_apart_fails_as_it_would_here(workers: int) -> None:
    with pytest.raises(InputError) as caught:
        apart(_bad_document, workers)()
    assert (caught.value.path, caught.value.line, caught.value.docid) == ("f.xml", 3, "D7")
    if workers == 2:  # here a bug is raised at once; from elsewhere it is named
        with pytest.raises(RuntimeError, match="ZeroDivisionError: a bug"):
            apart(_broken, workers)()


class _BrokenPipe(io.StringIO):
    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_job_apart_runs_here_when_a_standard_stream_cannot_be_flushed(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdout", _BrokenPipe("unwritten"))  # a child would write it again
    assert apart(os.getpid, 2)() == os.getpid()


def _none() -> None:
    return None


def _dies() -> int:
    os._exit(3)


def test_a_job_apart_may_give_none_and_a_dead_child_is_named() -> None:
    assert apart(_none, 2)() is None
    if not uses_workers(2):  # it would run here, and end the test run
        pytest.skip("no process can be forked here")
    with pytest.raises(RuntimeError, match="exit status 3"):
        apart(_dies, 2)()


# A few items, each but the first in a process forked for it: none, one, two and more,
# on one worker (the plain loop), two and three.
@pytest.mark.parametrize(("count", "workers"), [(c, w) for w in (1, 2, 3) for c in (0, 1, 2, 4)])
def test_spread_gives_results_in_item_order(count: int, workers: int) -> None:
    assert list(spread(_square, range(count), workers)) == [v * v for v in range(count)]


def test_spread_reads_the_first_item_here_and_each_other_elsewhere() -> None:
    if not uses_workers(2):
        pytest.skip("no process can be forked here")
    pids = list(spread(_pid, range(3), 2))
    assert pids[0] == os.getpid()
    assert os.getpid() not in pids[1:] and len(set(pids[1:])) == 2
    assert list(spread(_pid, range(3), 1)) == [os.getpid()] * 3


def _fail_at_odd(value: int) -> int:
    if value % 2:
        raise InputError(f"f{value}.xml", "a good document", "a bad one", line=value)
    return value


def _without_children() -> None:
    """Reap the children that other tests of this process left ended; skip the test when
    one still runs (the check that none is left would not be this test's)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            pytest.skip("a child process of another test still runs")


@pytest.mark.parametrize("workers", [1, 2])
def test_spread_the_first_failure_in_item_order_wins_and_no_process_is_left(workers: int) -> None:
    """Item 1 fails in a process of its own (or here, with one worker), item 3 too: item 1's
    error is the one raised, after item 0's result; every child has been waited for."""
    _without_children()
    results: list[int] = []
    with pytest.raises(InputError) as caught:
        results.extend(spread(_fail_at_odd, range(4), workers))
    assert (caught.value.path, caught.value.line, results) == ("f1.xml", 1, [0])
    with pytest.raises(ChildProcessError):  # no child of this process left, not even a zombie
        os.waitpid(-1, os.WNOHANG)


def test_spread_a_failure_here_waits_for_the_processes_after_it() -> None:
    _without_children()
    with pytest.raises(InputError) as caught:
        list(spread(_fail_at_odd, [1, 2, 3], 2))
    assert caught.value.path == "f1.xml"
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_a_job_apart_leaves_this_process_collector_as_it_was() -> None:
    """The parent's objects are frozen for the fork only (the child's collector leaves
    them be); in the parent the collector goes on seeing them."""
    if not uses_workers(2):
        pytest.skip("no process can be forked here")
    frozen = gc.get_freeze_count()
    assert apart(gc.get_freeze_count, 2)() > frozen  # the child's collector leaves them be
    assert gc.get_freeze_count() == frozen


def test_a_pool_leaves_this_process_collector_as_it_was() -> None:
    frozen = gc.get_freeze_count()
    assert list(ordered_map(_square, range(5), 2)) == [0, 1, 4, 9, 16]
    assert gc.get_freeze_count() == frozen
