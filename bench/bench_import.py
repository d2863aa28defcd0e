"""Benchmark of ``harem import`` on a CoNLL predictions file, beside ``harem measures``.

Generates (seeded, into a temporary folder that is removed afterwards) a
golden collection made of copies of the Mini-HAREM collection with new
DOCIDs, and a CoNLL file of its tokens (``token gold prediction``: the
exported gold, and a prediction with about 10 % of the entities dropped and
10 % relabelled), of ``--tokens`` tokens and of a quarter of that.  Then
times whole runs -- each a fresh subprocess, interleaved -- and prints the
medians of their wall times and of their CPU times (user + system, which
move less with other work on the machine):

* ``harem measures FILE --format conll`` (reading the same file);
* ``harem import FILE --format conll --cd CD -o RUN``;

and the peak resident memory of ``harem import`` at both sizes, to show it
does not grow with the number of documents.  Not part of the test suite.

Usage: ``python bench/bench_import.py [--tokens 1000000] [--repeat 5] [--seed 2006]``
"""

from __future__ import annotations

import argparse
import bisect
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from harem_pipeline.formats.conll import encode_spans
from harem_pipeline.formats.harem_xml import format_collection, read_collection
from harem_pipeline.tools.export import document_tokens, export_document, format_conll_document

MINI_HAREM = (
    Path(__file__).resolve().parent.parent / "data/lampada2/CDPrimeiroHAREMMiniHAREM.xml.gz"
)
LABELS = ("PESSOA", "ORGANIZACAO", "LOCAL", "TEMPO", "VALOR", "OBRA", "ABSTRACCAO")


def generate(folder: Path, n_tokens: int, seed: int) -> tuple[Path, Path, int, int]:
    """Write ``cd.xml`` and ``pred.conll`` of at least ``n_tokens`` tokens (paths and sizes)."""
    rng = random.Random(seed)
    mini = read_collection(MINI_HAREM)
    documents, lines, tokens, copy = [], [], 0, 0
    while tokens < n_tokens:
        for doc in mini.documents:
            doc = replace(doc, docid=f"{doc.docid}-c{copy}")
            documents.append(doc)
            gold = export_document(doc)
            positions = document_tokens(gold)
            starts = [s for s, _ in positions]
            spans = []
            for entity in gold.entities:
                roll = rng.random()
                if roll < 0.1:
                    continue
                label = rng.choice(LABELS) if roll < 0.2 else entity.label
                lo = bisect.bisect_left(starts, entity.start)
                hi = bisect.bisect_left(starts, entity.end)
                spans.append((lo, hi, frozenset((label,))))
            predicted = iter(encode_spans(spans, len(positions), "iob2"))
            for line in format_conll_document(gold).splitlines():
                lines.append(
                    line
                    if not line or line.startswith("-DOCSTART-")
                    else f"{line} {next(predicted)}"
                )
            tokens += len(positions)
            if tokens >= n_tokens:
                break
        copy += 1
    cd = folder / "cd.xml"
    collection = replace(mini, documents=tuple(documents))
    cd.write_text(format_collection(collection), encoding=mini.encoding, newline="")
    pred = folder / "pred.conll"
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cd, pred, tokens, len(documents)


def generate_apart(folder: Path, n_tokens: int, seed: int) -> tuple[Path, Path, int, int]:
    """``generate`` in a child process (whose memory the timed runs never inherit)."""
    argv = [sys.executable, __file__, "--generate-into", str(folder)]
    argv += ["--tokens", str(n_tokens), "--seed", str(seed)]
    tokens, docs = subprocess.run(argv, check=True, capture_output=True, text=True).stdout.split()
    return folder / "cd.xml", folder / "pred.conll", int(tokens), int(docs)


def run(argv: list[str]) -> tuple[float, int, float]:
    """Run a command to completion; its wall time (s), peak RSS (KiB) and CPU time (s).

    CPU time (user + system) is what the process itself used, so it moves
    less than wall time with other work on the machine.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(argv[:2])} failed: {err}")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2006)
    parser.add_argument("--generate-into", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_into:  # in a child, so the parent stays small for the RSS figures
        cd, pred, tokens, docs = generate(Path(args.generate_into), args.tokens, args.seed)
        print(tokens, docs)
        return
    harem = shutil.which("harem", path=str(Path(sys.executable).parent)) or shutil.which("harem")
    if not harem:
        raise SystemExit("the harem command is not installed (pip install -e .)")
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        big, small = Path(tmp) / "big", Path(tmp) / "small"
        big.mkdir()
        small.mkdir()
        cd, pred, tokens, docs = generate_apart(big, args.tokens, args.seed)
        small_cd, small_pred, small_tokens, small_docs = generate_apart(
            small, args.tokens // 4, args.seed
        )
        print(
            f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}"
        )
        print(
            f"predictions: {tokens:,} tokens, {docs:,} documents, "
            f"{pred.stat().st_size / 1e6:.1f} MB; collection {cd.stat().st_size / 1e6:.1f} MB; "
            f"medians of {args.repeat} runs, interleaved\n"
        )
        measures = [harem, "measures", str(pred), "--format", "conll"]
        imports = [harem, "import", str(pred), "--format", "conll", "--cd", str(cd)]
        imports += ["-o", str(big / "run.xml")]
        timed: dict[str, list[tuple[float, int, float]]] = {"measures": [], "import": []}
        for _ in range(args.repeat):
            timed["measures"].append(run(measures))
            timed["import"].append(run(imports))
        small_run = run(
            [harem, "import", str(small_pred), "--format", "conll", "--cd", str(small_cd)]
            + ["-o", str(small / "run.xml")]
        )
        print(
            "| command | median wall time (s) | tokens/s | median CPU time (s) | peak RSS (MiB) |"
        )
        print("|---|---:|---:|---:|---:|")
        medians, cpu = {}, {}
        for name, results in timed.items():
            medians[name] = statistics.median(t for t, _, _ in results)
            cpu[name] = statistics.median(c for _, _, c in results)
            rss = max(m for _, m, _ in results) / 1024
            print(
                f"| harem {name} | {medians[name]:.2f} | "
                f"{tokens / medians[name]:,.0f} | {cpu[name]:.2f} | {rss:.0f} |"
            )
        ratio = medians["import"] / medians["measures"]
        cpu_ratio = cpu["import"] / cpu["measures"]
        print(f"\nimport / measures time: {ratio:.2f} wall, {cpu_ratio:.2f} CPU (target <= 1)")
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")
        big_rss = max(m for _, m, _ in timed["import"]) / 1024
        print(
            f"import peak RSS: {small_run[1] / 1024:.0f} MiB at {small_tokens:,} tokens "
            f"({small_docs:,} documents), {big_rss:.0f} MiB at {tokens:,} tokens "
            f"({docs:,} documents)"
        )


if __name__ == "__main__":
    main()
