"""Benchmark of the whole pipeline: a campaign from scratch, an unchanged rerun, scale.

Every figure is a whole ``harem run --quiet`` (a fresh subprocess), the
median of ``--repeat`` runs, as wall time and as CPU time (user + sys of the
process and its workers, which a busy machine disturbs less):

* the default campaign (``pipeline.yaml``: the First HAREM collection, three
  simulated runs, five subsets, two scenarios) from scratch, into a
  temporary output folder, and rerun unchanged;
* campaign scale: ``--runs`` (20) simulated First HAREM runs × the default's
  five subsets × two scenarios with ``--workers`` (2) workers, against the
  same campaign with one run (with those workers and with one); targets:
  at most 1.2 × (runs ÷ workers) × one run, and the unchanged rerun of the
  big campaign under 2 s.

Simulated runs are generated into the temporary folder with ``harem
simulate`` (profiles strong/average/weak in turn, seeds 100, 101, …);
nothing is committed.  Not part of the test suite.

Usage: ``python bench/bench_pipeline.py [--repeat 3] [--runs 20] [--workers 2]
[--only default|scale]``
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HAREM = [sys.executable, "-m", "harem_pipeline"]
CD = ROOT / "data" / "first-harem" / "ColeccaoDouradaHAREM.txt"
PROFILES = ("strong", "average", "weak")
SUBSETS = "[total, pt, br, jornalistico, pt.jornalistico]"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU time of one command (with its workers); a failure stops the benchmark."""
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, children_cpu() - cpu


def median(times: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def show(what: str, figure: tuple[float, float], repeat: int, note: str = "") -> None:
    wall, cpu = figure
    print(f"{what:<44} {wall:8.2f} s wall {cpu:8.2f} s CPU (median of {repeat}){note}")


def write_config(folder: Path, runs: str, workers: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "pipeline.yaml"
    config.write_text(
        f"collection: {CD}\nruns: [{runs}]\noutput: out\nsubsets: {SUBSETS}\n"
        f"scenarios: [absolute, relative]\nworkers: {workers}\n",
        encoding="utf-8",
    )
    return config


def from_scratch_and_again(
    folder: Path, repeat: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Medians of the campaign in ``folder`` from scratch and rerun unchanged."""
    full, again = [], []
    for _ in range(repeat):
        shutil.rmtree(folder / "out", ignore_errors=True)
        full.append(timed([*HAREM, "run", "--quiet"], folder))
        again.append(timed([*HAREM, "run", "--quiet"], folder))
    return median(full), median(again)


def simulate_runs(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        profile = PROFILES[i % len(PROFILES)]
        subprocess.run(
            [
                *HAREM,
                "simulate",
                "--cd",
                str(CD),
                "--profile",
                profile,
                "--seed",
                str(100 + i),
                "-o",
                str(folder / f"sim{i:02d}.txt"),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def default_campaign(folder: Path, args: argparse.Namespace) -> None:
    write_config(folder, str(ROOT / "data" / "campaign" / "*.txt.gz"), args.workers)
    full, again = from_scratch_and_again(folder, args.repeat)
    show(f"default campaign, from scratch ({args.workers} workers)", full, args.repeat)
    share = f" = {100 * again[0] / full[0]:.1f} % of from scratch"
    show("default campaign, unchanged", again, args.repeat, share)


def campaign_scale(folder: Path, args: argparse.Namespace) -> None:
    """One simulated run against ``--runs``, five subsets, both scenarios."""
    simulate_runs(folder / "runs", args.runs)
    one_run = str(folder / "runs" / "sim00.txt")
    one = {w: write_config(folder / f"one-{w}", one_run, w) for w in sorted({1, args.workers})}
    many = write_config(folder / "many", str(folder / "runs" / "sim*.txt"), args.workers)
    times: dict[Path, list[tuple[float, float]]] = {config: [] for config in (*one.values(), many)}
    rerun = []
    for _ in range(args.repeat):  # interleaved, so each sees the same machine load
        for config in times:
            shutil.rmtree(config.parent / "out", ignore_errors=True)
            times[config].append(timed([*HAREM, "run", "--quiet"], config.parent))
        rerun.append(timed([*HAREM, "run", "--quiet"], many.parent))
    big = median(times[many])
    show(f"{args.runs} runs, {args.workers} workers", big, args.repeat)
    ideal = args.runs / args.workers
    for workers, config in one.items():
        small = median(times[config])
        ratio = f" -> {args.runs} runs = {big[0] / small[0]:.1f} x (target <= {1.2 * ideal:.1f})"
        show(f"1 run, {workers} worker{'s' if workers > 1 else ''}", small, args.repeat, ratio)
    show(f"{args.runs} runs, unchanged (target < 2 s)", median(rerun), args.repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=("default", "scale"), help="one part only")
    args = parser.parse_args()
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    # The byte-code cache an installed package has: under PYTHONDONTWRITEBYTECODE=1
    # every process would compile the sources again.
    for package in ("harem_pipeline", "tasks"):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / package)], check=True)
    with tempfile.TemporaryDirectory(prefix="harem-bench-") as tmp:
        if args.only in (None, "default"):
            default_campaign(Path(tmp) / "default", args)
        if args.only in (None, "scale"):
            campaign_scale(Path(tmp) / "scale", args)
    print(f"# load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
