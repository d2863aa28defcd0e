"""Benchmark of the semantic chain against the official programs, side by side.

The chain alts → emir → ida → altsem → ida on the shipped Second HAREM run
(``data/reference/gabriel/total_harem.veu.gz``), each step a whole process;
the figure is the median over ``--repeat`` runs of the chain's total, for
``harem`` (``.venv/bin/harem``, default 1,000 bootstrap resamples in ``ida``)
and for the official programs (``hj``: AltAlignmentOrganizer,
SemanticAlignmentEvaluator, GlobalSemanticEvaluator,
SemanticAltAlignmentSelector, GlobalSemanticEvaluator).  Target: ours at
least 5 times faster.  Runs only where the programs are installed
(``$HAREM_ORACLE`` or ``~/harem-oracle``); not part of the test suite.

Usage: ``python bench/bench_semantic.py [--repeat 5]``
"""

from __future__ import annotations

import argparse
import gzip
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

from oracle import oracle_home

ROOT = Path(__file__).resolve().parent.parent
VEU = ROOT / "data" / "reference" / "gabriel" / "total_harem.veu.gz"
HAREM = str(Path(sys.executable).with_name("harem"))


def ours(work: Path) -> list[list[str]]:
    return [
        [HAREM, "-q", "alts", "t.veu", "-o", "o.alts"],
        [HAREM, "-q", "emir", "o.alts", "-o", "o.emir"],
        [HAREM, "-q", "ida", "o.emir", "-o", "o.emir.ida"],
        [HAREM, "-q", "altsem", "o.emir", "-o", "o.emir.altrel"],
        [HAREM, "-q", "ida", "o.emir.altrel", "-o", "o.emir.altrel.ida"],
    ]


def java(hj: Path) -> list[tuple[list[str], str]]:
    h = str(hj)
    return [
        ([h, "AltAlignmentOrganizer", "-alinhamento", "t.veu"], "j.alts"),
        ([h, "SemanticAlignmentEvaluator", "-alinhamento", "j.alts"], "j.emir"),
        ([h, "GlobalSemanticEvaluator", "-alinhamento", "j.emir"], "j.emir.ida"),
        ([h, "SemanticAltAlignmentSelector", "-alinhamento", "j.emir"], "j.emir.altrel"),
        ([h, "GlobalSemanticEvaluator", "-alinhamento", "j.emir.altrel"], "j.emir.altrel.ida"),
    ]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_ours(work: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child processes) of our chain."""
    cpu, start = _children_cpu(), time.perf_counter()
    for command in ours(work):
        subprocess.run(command, cwd=work, check=True)
    return time.perf_counter() - start, _children_cpu() - cpu


def time_java(work: Path, hj: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the official chain."""
    cpu, start = _children_cpu(), time.perf_counter()
    for command, output in java(hj):
        with (work / output).open("wb") as handle:
            subprocess.run(command, cwd=work, check=True, stdout=handle)
    return time.perf_counter() - start, _children_cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    oracle = oracle_home()
    if oracle is None:
        print("no official programs here (HAREM_ORACLE or ~/harem-oracle): nothing to do")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-semantic-") as tmp:
        work = Path(tmp)
        with gzip.open(VEU, "rb") as src, (work / "t.veu").open("wb") as dst:
            shutil.copyfileobj(src, dst)
        # The byte-code cache an installed package has (pip compiles it on
        # install): without it, under PYTHONDONTWRITEBYTECODE=1, every step
        # compiles the package's sources again (about 0.1-0.25 s a process).
        package = str(ROOT / "harem_pipeline")
        subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True)
        time_ours(work)  # warm the file cache
        mine, theirs = [], []
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            mine.append(time_ours(work))
            theirs.append(time_java(work, oracle / "hj"))
        same = (
            (work / "o.emir.ida")
            .read_bytes()
            .startswith((work / "j.emir.ida").read_bytes().rstrip(b"\n"))
        )
    walls = [(a[0], b[0]) for a, b in zip(mine, theirs, strict=True)]
    m = statistics.median(w for w, _ in walls)
    j = statistics.median(w for _, w in walls)
    paired = statistics.median(b / a for a, b in walls)
    cpu_m = statistics.median(c for _, c in mine)
    cpu_j = statistics.median(c for _, c in theirs)
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    print(f"harem (alts, emir, ida, altsem, ida): wall median {m:.2f} s, CPU median {cpu_m:.2f} s")
    print(f"official programs, same chain:       wall median {j:.2f} s, CPU median {cpu_j:.2f} s")
    print(f"pairs (ours, official) wall s: {[(round(a, 2), round(b, 2)) for a, b in walls]}")
    print(
        f"ratio: wall medians {j / m:.1f}x, paired median {paired:.1f}x, CPU {cpu_j / cpu_m:.1f}x;"
        f" .emir.ida begins with the Java's: {same}"
    )
    return 0 if paired >= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
