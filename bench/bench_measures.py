"""Benchmark of ``harem measures`` against seqeval and nervaluate on one CoNLL file.

Generates (seeded, into a temporary folder that is removed afterwards) a
CoNLL file of ``--tokens`` tokens with IOB2 gold tags and a noisy system
column, then times whole runs -- each a fresh subprocess that reads the file
and prints its report -- and prints the medians:

* ``harem measures FILE --format conll --json`` (the installed CLI, every
  measure at once);
* seqeval's ``classification_report`` (default mode), after reading the file
  into lists of tags;
* nervaluate's ``Evaluator(...).evaluate()`` (list loader).

It also reports the peak resident memory of ``harem measures`` on a file a
quarter that size, to show memory does not grow with the file.  Needs the
``bench`` extra: ``pip install -e '.[bench]'``.  Not part of the test suite.

Usage: ``python bench/bench_measures.py [--tokens 1000000] [--repeat 3]``
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


def run(argv: list[str]) -> tuple[float, int]:
    """Run a command to completion; its wall time (s) and peak RSS (KiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.stderr.close()
    if proc.returncode:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {err}")
    return elapsed, usage.ru_maxrss


def median_run(argv: list[str], repeat: int) -> tuple[float, int]:
    results = [run(argv) for _ in range(repeat)]
    return statistics.median(t for t, _ in results), max(m for _, m in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2013)
    parser.add_argument("--skip-nervaluate", action="store_true")
    args = parser.parse_args()

    harem = shutil.which("harem", path=str(Path(sys.executable).parent)) or shutil.which("harem")
    if not harem:
        raise SystemExit("the harem command is not installed (pip install -e '.[bench]')")
    with tempfile.TemporaryDirectory(prefix="bench-measures-") as tmp:
        big = Path(tmp) / "big.conll"
        small = Path(tmp) / "small.conll"
        generate(big, args.tokens, args.seed)
        generate(small, args.tokens // 4, args.seed)
        size_mb = big.stat().st_size / 1e6
        print(
            f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}"
        )
        print(f"file: {args.tokens:,} tokens, {size_mb:.1f} MB; medians of {args.repeat} runs\n")

        ours_cmd = [harem, "measures", str(big), "--format", "conll", "--json"]
        ours, ours_rss = median_run(ours_cmd, args.repeat)
        small_cmd = [harem, "measures", str(small), "--format", "conll", "--json"]
        _, small_rss = median_run(small_cmd, 1)
        seq, seq_rss = median_run([sys.executable, "-c", SEQEVAL, str(big)], args.repeat)
        rows = [
            ("harem measures (all measures)", ours, ours_rss),
            ("seqeval classification_report", seq, seq_rss),
        ]
        if not args.skip_nervaluate:
            ner, ner_rss = median_run([sys.executable, "-c", NERVALUATE, str(big)], args.repeat)
            rows.append(("nervaluate Evaluator", ner, ner_rss))

        print("| tool | median wall time (s) | tokens/s | peak RSS (MiB) |")
        print("|---|---:|---:|---:|")
        for name, seconds, rss in rows:
            print(f"| {name} | {seconds:.2f} | {args.tokens / seconds:,.0f} | {rss / 1024:.0f} |")
        print(f"\nharem / seqeval time: {ours / seq:.3f} (target <= 0.2)")
        print(f"harem tokens/s: {args.tokens / ours:,.0f} (target >= 500,000)")
        print(
            f"harem peak RSS: {small_rss / 1024:.0f} MiB at {args.tokens // 4:,} tokens, "
            f"{ours_rss / 1024:.0f} MiB at {args.tokens:,} tokens"
        )


if __name__ == "__main__":
    main()
