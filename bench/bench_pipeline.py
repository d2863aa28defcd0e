"""Benchmark of the whole pipeline: a campaign from scratch, an unchanged rerun, scaling.

Every figure is a whole ``harem run`` (a fresh subprocess), and the median
of ``--repeat`` runs:

* the default campaign (``pipeline.yaml``: the First HAREM collection, three
  simulated runs, five subsets, two scenarios) from scratch, into a
  temporary output folder;
* the same campaign rerun unchanged — it must take under 5 % of the full
  run and under 2 s: only content digests are checked;
* scaling: a campaign of one simulated run and one of ``--runs`` (20)
  simulated runs (subset ``total``, both scenarios), with ``--workers``
  workers; the ratio should be about ``runs / workers``, not more.

Simulated runs are generated into the temporary folder with ``harem
simulate`` (nothing is committed).  Not part of the test suite.

Usage: ``python bench/bench_pipeline.py [--repeat 3] [--runs 20] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import platform
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


def timed(args: list[str], cwd: Path) -> float:
    """Wall time of one command; a failure stops the benchmark."""
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def write_config(folder: Path, runs: str, subsets: str, workers: int) -> Path:
    config = folder / "pipeline.yaml"
    config.write_text(
        f"collection: {CD}\nruns: [{runs}]\noutput: out\nsubsets: {subsets}\n"
        f"scenarios: [absolute, relative]\nworkers: {workers}\n",
        encoding="utf-8",
    )
    return config


def default_campaign(folder: Path, repeat: int, workers: int) -> tuple[float, float]:
    """Medians of the full run and of the unchanged rerun of the shipped campaign."""
    runs = ROOT / "data" / "campaign" / "*.txt.gz"
    write_config(folder, str(runs), "[total, pt, br, jornalistico, pt.jornalistico]", workers)
    full, again = [], []
    for _ in range(repeat):
        shutil.rmtree(folder / "out", ignore_errors=True)
        full.append(timed([*HAREM, "run", "--quiet"], folder))
        again.append(timed([*HAREM, "run", "--quiet"], folder))
    return statistics.median(full), statistics.median(again)


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


def scaling(folder: Path, runs: int, workers: int, repeat: int) -> tuple[float, float]:
    """Medians of a one-run and a ``runs``-run campaign with ``workers`` workers."""
    simulate_runs(folder / "runs", runs)
    one, many = folder / "one", folder / "many"
    for sub, pattern in ((one, "sim00.txt"), (many, "sim*.txt")):
        sub.mkdir()
        write_config(sub, str(folder / "runs" / pattern), "[total]", workers)
    times = {one: [], many: []}
    for _ in range(repeat):
        for sub in (one, many):
            shutil.rmtree(sub / "out", ignore_errors=True)
            times[sub].append(timed([*HAREM, "run", "--quiet"], sub))
    return statistics.median(times[one]), statistics.median(times[many])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory(prefix="harem-bench-") as tmp:
        tmp_path = Path(tmp)
        (tmp_path / "default").mkdir()
        full, rerun = default_campaign(tmp_path / "default", args.repeat, args.workers)
        print(f"default campaign, from scratch:  {full:7.2f} s (median of {args.repeat})")
        print(
            f"default campaign, unchanged:     {rerun:7.2f} s = {100 * rerun / full:.1f} % "
            f"(targets: < 5 %, < 2 s)"
        )
        one, many = scaling(tmp_path / "scaling", args.runs, args.workers, args.repeat)
        ideal = args.runs / args.workers
        print(f"1 run:  {one:7.2f} s;  {args.runs} runs: {many:7.2f} s with {args.workers} workers")
        print(f"ratio {many / one:.1f} (about {ideal:.0f} = runs / workers expected)")


if __name__ == "__main__":
    main()
