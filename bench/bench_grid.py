"""Benchmark of a campaign under the whole scenario grid (``veils: official``).

A campaign of N runs (copies of the shipped Second HAREM run,
``data/second-harem``, each under its own name) on the shipped collection,
``veils: official`` (15 veils, strict and relaxed ALT), built by
``harem run --workers 2`` in a temporary folder (removed afterwards), against
the target of docs/spec/official-grid.md: at most 1.2 × (N × 15 ÷ 2) × the
time of one run under one veil (a one-run campaign with ``veils: [total]``,
``--workers 1``); then the unchanged rerun, whose target is under 2 s.

Every figure is a whole ``harem run`` process's wall time (one measure each:
the campaign is long), with its CPU time (user + system of the build's
processes) and the load average, since on a shared machine the wall time
follows the load: half the grid's CPU time against the one run's CPU time is
the comparison the load moves least.  Usage: ``python bench/bench_grid.py [--runs 2]``.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "second-harem"
COLLECTION = DATA / "SegundoHaremReRelEM_t1.xml.gz"
RUN = DATA / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
HAREM = Path(sys.executable).with_name("harem")
GRID_VEILS = 15


def write_campaign(folder: Path, runs: int, veils: str) -> Path:
    """``pipeline.yaml`` of ``runs`` copies of the shipped run under ``veils``."""
    folder.mkdir(parents=True)
    own = "cenario2" if veils == "official" else "total"  # a veil veils: lists
    lines = [f"collection: {COLLECTION}", "runs:"]
    for k in range(runs):
        copy = folder / f"run{k}.xml.gz"
        shutil.copyfile(RUN, copy)
        lines.append(f"  - {{path: {copy}, name: run{k}, veil: {own}}}")
    lines += [
        "output: out",
        "subsets: [total]",
        "scenarios: [absolute]",
        "style: muc",
        "bootstrap: 20",
        "charts: false",
        f"veils: {veils}",
    ]
    config = folder / "pipeline.yaml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _children_cpu() -> float:
    """User + system CPU seconds of every finished child process (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(config: Path, workers: int) -> tuple[float, float]:
    """Wall time and CPU time of one ``harem run`` of ``config`` (the CPU of the build's
    processes, its workers included); a failed build stops the bench.

    The machine's one-minute load average before and after is printed: on a
    shared machine a wall time means little without it, and the CPU time
    gives the figure the load does not move (much).
    """
    before = os.getloadavg()[0]
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run(
        [str(HAREM), "run", "--config", str(config), "--workers", str(workers), "--quiet"],
        cwd=config.parent,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    print(
        f"  ({config.parent.name}, {workers} worker(s): {elapsed:.1f} s wall, {cpu:.1f} s CPU, "
        f"load average {before:.1f} before, {os.getloadavg()[0]:.1f} after)",
        flush=True,
    )
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="N, the campaign's runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, one_cpu = timed_run(write_campaign(Path(tmp) / "one", 1, "[total]"), 1)
        config = write_campaign(Path(tmp) / "grid", args.runs, "official")
        grid, grid_cpu = timed_run(config, 2)
        rerun, _ = timed_run(config, 2)
    scale = args.runs * GRID_VEILS / 2
    print(f"one run x one veil (1 worker): {one:.1f} s wall, {one_cpu:.1f} s CPU")
    print(f"{args.runs} runs x {GRID_VEILS} veils (2 workers): {grid:.1f} s wall")
    print(f"  target 1.2 x {args.runs} x {GRID_VEILS} / 2 x one: {1.2 * scale * one:.1f} s")
    print(f"  ratio to N x 15 / 2 x one: {grid / (scale * one):.2f}")
    shared = grid_cpu / 2  # the wall time of two fully busy workers
    print(
        f"  CPU: {grid_cpu:.1f} s, over 2 workers {shared:.1f} s; the same target from one "
        f"run's CPU: {1.2 * scale * one_cpu:.1f} s (ratio {shared / (scale * one_cpu):.2f})"
    )
    print(f"unchanged rerun: {rerun:.2f} s (target < 2 s)")


if __name__ == "__main__":
    main()
