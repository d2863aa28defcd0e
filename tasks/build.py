"""Building a campaign on several cores: each run's chains in a process of its own first.

With several workers Luigi runs every task in a process forked for it and
hands each task out after a walk over the pending ones; a campaign of 20
runs is 1,600 tasks, and those forks and walks cost more than the parallel
work gains (20 runs on two workers took 13.7 times one run on one worker).
The runs share no task, so ``build_runs_apart`` gives each of ``workers``
processes (forked once) a share of the runs, built there by one in-process
Luigi worker with its own local scheduler; the campaign's own build then
finds every run's chain complete and makes the summary and report.  Nothing
else changes: the same tasks write the same files, a run that fails there
is tried again (and reported) by that final build, and a campaign found
complete from its manifest skips this step altogether.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import multiprocessing.connection
from collections.abc import Iterable

import luigi

from harem_pipeline.pipeline import chain
from tasks.base import BuildSchedulerFactory, RunTask
from tasks.pipeline import FullEvaluation, Summary


def run_shares(tasks: Iterable[RunTask], workers: int) -> list[list[RunTask]]:
    """``tasks`` (each of one run) in ``workers`` shares, whole runs dealt in turn, none empty;
    a ceiling run goes with its model run, whose import it reads."""
    by_run: dict[str, list[RunTask]] = {}
    for task in tasks:
        by_run.setdefault(task.run_spec.ceiling_of or task.run_name, []).append(task)
    runs = list(by_run.values())
    shares = [list(itertools.chain.from_iterable(runs[i::workers])) for i in range(workers)]
    return [share for share in shares if share]


def build_runs_apart(root: FullEvaluation, workers: int) -> list[str]:
    """Build the chains of the campaign's runs, their shares in ``workers`` processes at once.

    Returns Luigi's summary of each share's build, to show what ran there.
    Does nothing (and returns no summary) when the campaign's manifest says
    all is complete, for one worker, or for one run: then the campaign's
    build alone does as well.
    """
    if workers < 2 or root.recorded:
        return []
    reports = Summary(config=root.config).requires()  # every one of them a run's
    shares = run_shares((task for task in reports if isinstance(task, RunTask)), workers)
    if len(shares) < 2:
        return []
    # As before Luigi's own forks: what the steps import is imported once, and
    # the collector keeps off the pages the processes share.
    chain.load_lazy_modules()
    gc.collect()
    gc.freeze()
    context = multiprocessing.get_context("fork")
    started = []
    for share in shares:
        receiver, sender = context.Pipe(duplex=False)
        # Daemonic: a step in them runs on one core (the aligner forks no workers there).
        process = context.Process(target=_build, args=(share, sender), daemon=True)
        process.start()
        sender.close()
        started.append((process, receiver))
    summaries = []
    for process, receiver in started:
        try:
            summaries.append(receiver.recv())
        except EOFError:  # the process died before it could say
            summaries.append(f"(the build of a share of the runs ended with {process.exitcode})")
        process.join()
    return summaries


def _build(tasks: list[RunTask], sender: multiprocessing.connection.Connection) -> None:
    """One share of the runs, by one Luigi worker in this process; its summary sent back.

    A failure is not logged here: the campaign's build tries the task again
    and reports it, once.
    """
    result = luigi.build(
        tasks,
        worker_scheduler_factory=BuildSchedulerFactory(),
        workers=1,
        local_scheduler=True,
        detailed_summary=True,
        log_level="CRITICAL",
    )
    sender.send(result.summary_text)
    sender.close()
