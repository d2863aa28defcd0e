"""Benchmark of ``harem measures`` against conlleval.pl, seqeval and nervaluate on one CoNLL file.

Generates (seeded, into a temporary folder that is removed afterwards) a
CoNLL file of ``--tokens`` tokens with IOB2 gold tags and a noisy system
column, then times whole runs -- each a fresh subprocess that reads the file
and prints its report -- and prints the medians:

* ``harem measures FILE --format conll --json`` (the installed CLI, every
  measure at once);
* seqeval's ``classification_report`` (default mode), after reading the file
  into lists of tags;
* nervaluate's ``Evaluator(...).evaluate()`` (list loader);
* with ``--conlleval PATH``, the Perl ``conlleval`` (``perl PATH < FILE``).
  It is not shipped here: seqeval's source distribution has one in
  ``tests/conlleval.pl`` (``pip download --no-binary :all: --no-deps seqeval``).

The tools take turns (one run of each, then the next round), so a load that
comes and goes on a shared machine falls on all of them alike; the table
gives the median wall time and the median CPU time (user + system) of the
rounds, and the ratios are taken on both.

It also reports the peak resident memory of ``harem measures`` on a file a
quarter that size, to show memory does not grow with the file.  Needs the
``bench`` extra: ``pip install -e '.[bench]'``.  Not part of the test suite.

Usage: ``python bench/bench_measures.py [--tokens 1000000] [--repeat 3] [--conlleval PATH]``
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TYPES = ("PER", "LOC", "ORG", "MISC")

READ_COLUMNS = """
def read_columns(path):
    gold, system, g, s = [], [], [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if not fields or fields[0] == "-DOCSTART-":
                if g:
                    gold.append(g)
                    system.append(s)
                    g, s = [], []
                continue
            g.append(fields[-2])
            s.append(fields[-1])
    if g:
        gold.append(g)
        system.append(s)
    return gold, system
"""

SEQEVAL = (
    READ_COLUMNS
    + """
import sys
from seqeval.metrics import classification_report
gold, system = read_columns(sys.argv[1])
print(classification_report(gold, system, digits=4))
"""
)

NERVALUATE = (
    READ_COLUMNS
    + """
import sys
from nervaluate import Evaluator
gold, system = read_columns(sys.argv[1])
tags = sorted({t[2:] for sentence in gold + system for t in sentence if t != "O"})
results = Evaluator(gold, system, tags=tags, loader="list").evaluate()
print(str(results)[:200])
"""
)


def generate(path: Path, n_tokens: int, seed: int) -> None:
    """Write a CoNLL file: IOB2 gold, and a system that gets about 80% of spans right."""
    rng = random.Random(seed)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("-DOCSTART- -X- O O\n\n")
        while written < n_tokens:
            n = min(rng.randint(5, 35), n_tokens - written)
            gold = ["O"] * n
            i = 0
            while i < n:
                if rng.random() < 0.15:
                    length = min(rng.choice((1, 1, 2, 2, 3, 4)), n - i)
                    kind = rng.choice(TYPES)
                    gold[i : i + length] = [f"B-{kind}"] + [f"I-{kind}"] * (length - 1)
                    i += length
                else:
                    i += 1
            system = list(gold)
            for j in range(n):
                r = rng.random()
                if r < 0.03:  # label error
                    if system[j] != "O":
                        system[j] = system[j][:2] + rng.choice(TYPES)
                elif r < 0.05:  # boundary error or spurious token
                    system[j] = "I-" + rng.choice(TYPES) if system[j] == "O" else "O"
            out.writelines(
                f"w{j} X {g} {s}\n" for j, (g, s) in enumerate(zip(gold, system, strict=True))
            )
            out.write("\n")
            written += n


def run(argv: list[str], stdin: Path | None = None) -> tuple[float, float, int]:
    """Run a command to completion; its wall time (s), CPU time (s) and peak RSS (KiB)."""
    handle = stdin.open("rb") if stdin is not None else subprocess.DEVNULL
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=handle, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if stdin is not None:
        handle.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.stderr.close()
    if proc.returncode:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {err}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def rounds(
    commands: dict[str, tuple[list[str], Path | None]], repeat: int
) -> dict[str, tuple[float, float, int]]:
    """Each command's median wall time, median CPU time and largest RSS over ``repeat``
    rounds, the commands taking turns within each round."""
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (argv, stdin) in commands.items():
            results[name].append(run(argv, stdin))
    return {
        name: (
            statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs),
            max(r[2] for r in runs),
        )
        for name, runs in results.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2013)
    parser.add_argument("--skip-nervaluate", action="store_true")
    parser.add_argument("--conlleval", type=Path, help="path of conlleval.pl (run with perl)")
    args = parser.parse_args()

    harem = shutil.which("harem", path=str(Path(sys.executable).parent)) or shutil.which("harem")
    if not harem:
        raise SystemExit("the harem command is not installed (pip install -e '.[bench]')")
    if args.conlleval is not None and not args.conlleval.is_file():
        raise SystemExit(f"{args.conlleval}: no such file")
    # The byte-code cache an installed package has (seqeval's and nervaluate's have
    # theirs): under PYTHONDONTWRITEBYTECODE=1 every run would compile ours again.
    root = Path(__file__).resolve().parent.parent
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(root / "harem_pipeline")], check=True
    )
    with tempfile.TemporaryDirectory(prefix="bench-measures-") as tmp:
        big = Path(tmp) / "big.conll"
        small = Path(tmp) / "small.conll"
        out = Path(tmp) / "out.json"
        generate(big, args.tokens, args.seed)
        generate(small, args.tokens // 4, args.seed)
        size_mb = big.stat().st_size / 1e6
        print(
            f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}"
        )
        print(
            f"file: {args.tokens:,} tokens, {size_mb:.1f} MB; medians of {args.repeat} rounds "
            "(the tools take turns)\n"
        )
        ours = "harem measures (all measures, errors, --json)"
        commands: dict[str, tuple[list[str], Path | None]] = {
            ours: (
                [harem, "measures", str(big), "--format", "conll", "--json", "-o", str(out)],
                None,
            ),
            "seqeval classification_report": ([sys.executable, "-c", SEQEVAL, str(big)], None),
        }
        if not args.skip_nervaluate:
            commands["nervaluate Evaluator"] = ([sys.executable, "-c", NERVALUATE, str(big)], None)
        if args.conlleval is not None:
            commands["conlleval.pl"] = (["perl", str(args.conlleval)], big)
        results = rounds(commands, args.repeat)
        big_json = out.stat().st_size / 1e6
        small_cmd = [harem, "measures", str(small), "--format", "conll", "--json", "-o", str(out)]
        _, _, small_rss = run(small_cmd)

        print("| tool | median wall (s) | median CPU (s) | tokens/s (wall) | peak RSS (MiB) |")
        print("|---|---:|---:|---:|---:|")
        for name, (wall, cpu, rss) in results.items():
            rate = args.tokens / wall
            print(f"| {name} | {wall:.2f} | {cpu:.2f} | {rate:,.0f} | {rss / 1024:.0f} |")
        wall, cpu, ours_rss = results[ours]
        print()
        for name, (other_wall, other_cpu, _) in results.items():
            if name != ours:
                print(
                    f"{name} / harem: {other_wall / wall:.2f}x wall, {other_cpu / cpu:.2f}x CPU"
                    " (target >= 5)"
                )
        print(f"harem tokens/s: {args.tokens / wall:,.0f} (target >= 500,000)")
        print(
            f"harem peak RSS: {small_rss / 1024:.0f} MiB at {args.tokens // 4:,} tokens, "
            f"{ours_rss / 1024:.0f} MiB at {args.tokens:,} tokens; its JSON {big_json:.1f} MB"
        )


if __name__ == "__main__":
    main()
