"""The campaign's progress on a terminal: one line on standard error, redrawn as stages finish.

``harem run`` builds a campaign in several processes: each share of the runs
in a process of its own (``tasks.build``), then Luigi's own workers, each task
in a process forked for it.  Every one of them finishes tasks, so the count
lives in memory shared by all (made before any fork): one flag per stage of
the campaign, set when a stage succeeds or is found complete, whichever
process sees it.  The process that sets a flag redraws the line, under a
lock shared as well, so the line always shows every stage done so far.

Only ``harem run`` turns it on (:func:`start`), and only when standard error
is a terminal; the handlers below do nothing otherwise.  Luigi calls them;
they count and draw, nothing else.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import luigi

CLEAR = "\r\x1b[K"
"""Back to the start of the line and erase it (ANSI, every terminal emulator)."""


def progress_line(
    done: int, total: int, runs_done: int, runs: int, last: str = "", width: int = 100
) -> str:
    """``harem run: 57/246 stages, 1/3 runs complete (Ida2ID sim-strong total)``, cut to
    ``width`` characters so it never wraps (a wrapped line cannot be redrawn in place).

    ASCII only: a terminal of any encoding shows it."""
    text = f"harem run: {done}/{total} stages, {runs_done}/{runs} runs complete"
    if last:
        text += f" ({last})"
    return text if len(text) <= width else text[: max(width - 3, 0)] + "..."


def task_label(task: luigi.Task) -> str:
    """``Ida2ID sim-strong total``: the stage and the parameters that tell its tasks apart."""
    parts = [type(task).__name__]
    # an Ida's kind names its scenario and ALT in one word
    axes = ("kind",) if hasattr(task, "kind") else ("scenario", "alt")
    for name in ("run_name", "subset", *axes):
        value = getattr(task, name, None)
        if isinstance(value, Enum):
            value = value.value
        if isinstance(value, str) and value:
            parts.append(value)
    return " ".join(parts)


def campaign_tasks(root: luigi.Task) -> list[luigi.Task]:
    """Every task ``root`` needs (not ``root`` itself: the campaign is no stage), each once,
    found through ``requires``."""
    seen: dict[str, luigi.Task] = {}
    pending = list(luigi.task.flatten(root.requires()))
    while pending:
        task = pending.pop()
        if task.task_id in seen:
            continue
        seen[task.task_id] = task
        pending.extend(luigi.task.flatten(task.requires()))
    return list(seen.values())


@dataclass
class Progress:
    """The shared count of one campaign's stages, and the line that shows it."""

    index: Mapping[str, int]
    """Task id → its flag."""
    runs: Mapping[str, frozenset[int]]
    """Run name → the flags of its stages."""
    stream: Any = None
    flags: Any = field(init=False)
    lock: Any = field(init=False)
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self.flags = context.RawArray("b", max(len(self.index), 1))
        self.lock = context.Lock()

    @classmethod
    def of(cls, tasks: Iterable[luigi.Task], stream: Any = None) -> Progress:
        tasks = list(tasks)
        index = {task.task_id: i for i, task in enumerate(tasks)}
        runs: dict[str, set[int]] = {}
        for task in tasks:
            run = getattr(task, "run_name", None)
            if isinstance(run, str):
                runs.setdefault(run, set()).add(index[task.task_id])
        return cls(index, {run: frozenset(flags) for run, flags in runs.items()}, stream)

    def counts(self) -> tuple[int, int]:
        """Stages done, runs whose every stage is done."""
        done = sum(self.flags[: len(self.index)])
        runs = sum(all(self.flags[i] for i in flags) for flags in self.runs.values())
        return done, runs

    def mark(self, task: luigi.Task) -> None:
        """``task`` is done (ran or found complete): count it once and redraw the line."""
        position = self.index.get(task.task_id)
        if position is None:
            return
        with self.lock:
            self.flags[position] = 1
            self.draw(task_label(task))

    def draw(self, last: str = "", end: str = "") -> None:
        done, runs = self.counts()
        width = shutil.get_terminal_size((100, 24)).columns - 1
        line = progress_line(done, len(self.index), runs, len(self.runs), last, width)
        self._write(CLEAR + line + end)

    def clear(self) -> None:
        """Erase the line (before another message is written to the terminal)."""
        with self.lock:
            self._write(CLEAR)

    def finish(self, succeeded: bool = True) -> None:
        """Leave the final count on its own line, with the time the build took."""
        with self.lock:
            seconds = f"{time.monotonic() - self.started:.0f} s"
            self.draw(f"done in {seconds}" if succeeded else f"stopped after {seconds}", "\n")

    def _write(self, text: str) -> None:
        stream = self.stream or sys.stderr
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):  # a closed terminal never fails the campaign
            pass


_ACTIVE: Progress | None = None
"""The progress of the build under way in this process (or in its parent, when forked)."""


class _ClearBeforeLogging(logging.Filter):
    """Luigi logs a failure (its one line) before it tells the handlers: erase the progress
    line first, so the message starts a line of its own."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _ACTIVE is not None:
            _ACTIVE.clear()
        return True


_CLEAR_FILTER = _ClearBeforeLogging()


def start(root: luigi.Task, stream: Any = None) -> Progress:
    """Count the stages ``root`` needs and draw their line on ``stream`` (standard error)."""
    global _ACTIVE
    _ACTIVE = Progress.of(campaign_tasks(root), stream)
    logging.getLogger("luigi-interface").addFilter(_CLEAR_FILTER)
    _ACTIVE.draw()
    return _ACTIVE


def stop(succeeded: bool = True) -> None:
    """Leave the final count (when a line was drawn) and stop drawing."""
    global _ACTIVE
    if _ACTIVE is not None:
        _ACTIVE.finish(succeeded)
    logging.getLogger("luigi-interface").removeFilter(_CLEAR_FILTER)
    _ACTIVE = None


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (the line is drawn nowhere else: not in logs, CI, pipes)."""
    try:
        return bool(stream.isatty()) and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):
        return False


@luigi.Task.event_handler(luigi.Event.SUCCESS)
def _ran(task: luigi.Task) -> None:
    if _ACTIVE is not None:
        _ACTIVE.mark(task)


@luigi.Task.event_handler(luigi.Event.DEPENDENCY_PRESENT)
def _found_complete(task: luigi.Task) -> None:
    if _ACTIVE is not None:
        _ACTIVE.mark(task)


@luigi.Task.event_handler(luigi.Event.FAILURE)
def _failed(task: luigi.Task, exception: BaseException) -> None:
    """A failure is logged next, on a line of its own: erase ours first."""
    if _ACTIVE is not None:
        _ACTIVE.clear()
