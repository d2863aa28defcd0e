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

``--records N`` instead times each semantic stage alone on a Second HAREM
×N ``.veu`` (the shipped collection and run with every document repeated N
times, made by ``bench_chains.py``'s generator, then ``harem align``,
``avalida`` and ``veus --style harem``, not timed): alts, espurios, emir,
emir --relative, altsem, ida on the ``.emir`` and on the ``.altrel``
(``--bootstrap 0``: the reading and counting, not the resampling), each a
whole process, median of ``--repeat``, in records read per second, with
the peak resident memory.  Target: 150,000 records/s each at ×50.

Usage: ``python bench/bench_semantic.py [--repeat 5]``,
``python bench/bench_semantic.py --records 50 [--repeat 3] [--seed 2010]
[--stages alts,altsem,espurios]``
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

from bench_chains import HAREM as HAREM_MODULE
from bench_chains import count_records, make_inputs, timed
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


RECORD_STAGES = (
    ("alts", "r.veu", ["-o", "r.alts"]),
    ("espurios", "r.alts", ["-o", "r.espurios"]),
    ("emir", "r.alts", ["-o", "r.emir"]),
    ("emir --relative", "r.alts", ["--relative", "-o", "r.emir_relativo"]),
    ("altsem", "r.emir", ["-o", "r.emir.altrel"]),
    ("ida", "r.emir", ["--bootstrap", "0", "-o", "r.emir.ida"]),
    ("ida (altrel)", "r.emir.altrel", ["--bootstrap", "0", "-o", "r.altrel.ida"]),
)


_stage_names = [name for name, _, _ in RECORD_STAGES]


def timed_stage(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one command."""
    start = time.perf_counter()
    with subprocess.Popen(command, cwd=cwd, stderr=subprocess.DEVNULL) as process:
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def record_stages(size: int, repeat: int, seed: int, only: set[str] | None = None) -> int:
    """Each semantic stage alone on Second HAREM ×``size``, in records read per second
    (``only``: only these stages shown, by the first word of their name; the others
    still run once, untimed, for the inputs of the later ones)."""
    byte_compile()
    with tempfile.TemporaryDirectory(prefix="bench-semantic-records-") as tmp:
        folder = Path(tmp)
        make_inputs("second", folder, size, seed)
        for command in (
            ["align", "--cd", "cd.xml", "--run", "run.xml", "-o", "r.alinhado"],
            ["avalida", "r.alinhado", "-o", "r.avalida"],
            ["veus", "--style", "harem", "r.avalida", "-o", "r.veu"],
        ):
            timed([*HAREM_MODULE, *command], folder)
        print(
            f"# {platform.python_implementation()} {platform.python_version()}, "
            f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, medians of {repeat}"
        )
        slowest = float("inf")
        shown = [n for n, _, _ in RECORD_STAGES if not only or n.split()[0] in only]
        for name, source, rest in RECORD_STAGES[: 1 + max(map(_stage_names.index, shown))]:
            command = [HAREM, "-q", name.split()[0], source, *rest]
            if only and name.split()[0] not in only:
                timed_stage(command, folder)  # not shown, but a later stage reads its output
                continue
            runs = [timed_stage(command, folder) for _ in range(repeat)]
            elapsed = statistics.median(wall for wall, _, _ in runs)
            cpu = statistics.median(cpu for _, cpu, _ in runs)
            rss = max(peak for _, _, peak in runs)
            records = count_records(folder / source)
            slowest = min(slowest, records / elapsed)
            print(
                f"{name:<16} x{size:<3} {records:>9,} records {elapsed:7.2f} s "
                f"{records / elapsed:>10,.0f} records/s | CPU {cpu:6.2f} s "
                f"{records / cpu:>10,.0f} records/s | {rss / 1024:5.0f} MiB",
                flush=True,
            )
        print(f"# load at the end {os.getloadavg()[0]:.1f}")
    return 0 if slowest >= 150_000 else 1


def byte_compile() -> None:
    """The byte-code cache an installed package has (pip compiles it on install).

    Without it, under ``PYTHONDONTWRITEBYTECODE=1``, every step compiles the
    package's sources again (about 0.1-0.25 s a process).
    """
    package = str(ROOT / "harem_pipeline")
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--records", type=int, metavar="N", help="each stage alone on Second HAREM xN"
    )
    parser.add_argument("--seed", type=int, default=2010)
    parser.add_argument(
        "--stages", help="with --records: only these stages, e.g. alts,altsem,espurios"
    )
    args = parser.parse_args()
    if args.records:
        only = set(args.stages.split(",")) if args.stages else None
        return record_stages(args.records, args.repeat, args.seed, only)
    oracle = oracle_home()
    if oracle is None:
        print("no official programs here (HAREM_ORACLE or ~/harem-oracle): nothing to do")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-semantic-") as tmp:
        work = Path(tmp)
        with gzip.open(VEU, "rb") as src, (work / "t.veu").open("wb") as dst:
            shutil.copyfileobj(src, dst)
        byte_compile()
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
