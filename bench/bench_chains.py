"""Benchmark of the aligner and the classic chains at campaign scale, beside the official programs.

Inputs are generated, seeded, into a temporary folder (nothing is committed):

* Second HAREM ×N: the shipped collection and run
  (``data/second-harem``) with every document repeated N times, copy k
  under the DOCID ``<id>-x<k>``, in one seeded order shared by collection
  and run;
* First HAREM ×N: the First HAREM collection and ``data/campaign/sim-average``
  repeated the same way;
* one document of a single line of ``--line-mb`` MB (the Second HAREM
  collection's text, line ends removed, entities kept) aligned with itself.

Every figure is a whole process (``harem ...`` or the Java program), the
median of ``--repeat`` runs, with its peak resident memory
(``ru_maxrss`` of the child).  Where both sides run, their runs alternate
(ours, Java, ours, …) and each pair's ratio is printed under the medians,
so a slow spell of the machine cannot favour one side.  Stages:

* ``align``: ``harem align`` on Second HAREM ×N and, when the official
  programs are there (``HAREM_ORACLE`` or ``~/harem-oracle``), the Java
  ``Aligner`` on the same files, with the ratio;
* ``chain``: identification, ``harem align → avalida → veus → altida →
  ida2id`` against the Java ``Aligner → IndividualAlignmentEvaluator →
  GlobalAlignmentEvaluator``;
* ``morph``: morphology on First HAREM ×N, ``harem vizir → altmor →
  ida2mor`` (after align, avalida and veus, which are not timed);
* ``line``: the one-line document;
* ``records``: each record stage alone, in records read per second;
* ``morphbig``: the morphology chain on one Véus file of at least
  ``--morph-records`` records (default 500,000): the First HAREM ×1 Véus
  result (align, avalida, veus; not timed) with its documents repeated
  (copy k renamed ``<id>-x<k>``); each stage timed alone, ``ida2mor`` with
  the default 1,000 resamples and with ``--bootstrap 0``, and the chain
  end to end in records per second.

The package is byte-compiled first (as an installation is), so no timed
process compiles its sources.  ``--record-stages`` picks some record stages: avalida,
veus, altida, ida2id, ida2id-bootstrap, vizir, altmor, ida2mor, ida2mor-bootstrap.

Usage: ``python bench/bench_chains.py [--sizes 1,10,50]
[--stages align,chain,morph,line,records,morphbig] [--record-stages avalida,veus,...]
[--repeat 3] [--line-mb 50] [--morph-records 500000] [--no-oracle] [--seed 2010]``.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from oracle import oracle_home

ROOT = Path(__file__).resolve().parent.parent
HAREM = [sys.executable, "-m", "harem_pipeline", "--quiet"]
SECOND_CD = ROOT / "data" / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
SECOND_RUN = ROOT / "data" / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
FIRST_CD = ROOT / "data" / "first-harem" / "ColeccaoDouradaHAREM.txt"
FIRST_RUN = ROOT / "data" / "campaign" / "sim-average.txt.gz"

_DOC = re.compile(rb"<DOC[\s>].*?</DOC>", re.DOTALL)
_SECOND_ID = re.compile(rb'(<DOC\s+DOCID=")([^"]*)(")')
_FIRST_ID = re.compile(rb"(<DOCID>)([^<]*)(</DOCID>)")


def read_raw(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def replicate(data: bytes, factor: int, seed: int) -> bytes:
    """The file with every document repeated ``factor`` times, new DOCIDs, seeded order."""
    docs = list(_DOC.finditer(data))
    head, tail = data[: docs[0].start()], data[docs[-1].end() :]
    separator = data[docs[0].end() : docs[1].start()] if len(docs) > 1 else b"\n"
    copies = []
    for copy in range(factor):
        for match in docs:
            doc = match.group(0)
            if copy:
                pattern = _SECOND_ID if _SECOND_ID.search(doc[:300]) else _FIRST_ID
                doc = pattern.sub(
                    lambda m, c=copy: m.group(1) + m.group(2).strip() + b"-x%d" % c + m.group(3),
                    doc,
                    count=1,
                )
            copies.append(doc)
    random.Random(seed).shuffle(copies)
    return head + separator.join(copies) + tail


def one_line_document(megabytes: int) -> bytes:
    """A Second HAREM collection of one document whose text is one line of about ``megabytes``."""
    text = read_raw(SECOND_CD).decode("iso8859-1")
    body = re.sub(
        r"\s*\n\s*",
        " ",
        re.sub(
            r"</?P>", " ", "".join(re.findall(r'<DOC DOCID="[^"]*">(.*?)</DOC>', text, re.DOTALL))
        ),
    )
    parts = []
    size = 0
    copy = 0
    while size < megabytes * 1_000_000:
        piece = re.sub(r'ID="([^"]*)"', lambda m, c=copy: f'ID="{m.group(1)}-{c}"', body)
        parts.append(piece)
        size += len(piece)
        copy += 1
    line = "".join(parts)
    head = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<colHAREM versao="x">\n'
    return (head + f'<DOC DOCID="line"><P>{line}</P></DOC>\n</colHAREM>\n').encode("iso8859-1")


def timed(args: list[str], cwd: Path, stdout: Path | None = None) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of one command; a failure stops the benchmark."""
    elapsed, rss, _ = timed_cpu(args, cwd, stdout)
    return elapsed, rss


def timed_cpu(args: list[str], cwd: Path, stdout: Path | None = None) -> tuple[float, int, float]:
    """Wall time, peak RSS (KiB) and CPU time (user + system, worker processes included).

    The CPU time is that of the child and of its own children it waited
    for (``wait4``), so an aligner that works on several processes is
    charged for all of them; on a loaded machine it is the steadier figure.
    """
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL
    err = open(cwd / "stderr.txt", "wb")
    try:
        start = time.perf_counter()
        with subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err) as process:
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - start
    finally:
        if stdout:
            out.close()
        err.close()
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(args)}")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def summary(results: list[tuple]) -> tuple:
    """Median wall time, largest peak RSS and (where timed) median CPU time of some runs."""
    return tuple(
        max(r[1] for r in results) if i == 1 else statistics.median(r[i] for r in results)
        for i in range(len(results[0]))
    )


def medians(repeat: int, run) -> tuple:
    """``summary`` of ``repeat`` runs."""
    return summary([run() for _ in range(repeat)])


def interleaved(repeat: int, ours, theirs) -> tuple[tuple, tuple | None, list[float]]:
    """``summary`` of both sides' runs, alternated (ours, theirs, ours, …), and each
    pair's wall-time ratio: a slow spell of the machine then hits both sides."""
    if theirs is None:
        return medians(repeat, ours), None, []
    pairs = [(ours(), theirs()) for _ in range(repeat)]
    mine, others = zip(*pairs, strict=True)
    return summary(list(mine)), summary(list(others)), [b[0] / a[0] for a, b in pairs]


def report_ratios(ratios: list[float]) -> None:
    """Each interleaved pair's ratio, under the medians' line."""
    if ratios:
        shown = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"{'':34} Java/ours of each interleaved pair: {shown}", flush=True)


def report_cpu(
    what: str, ours: tuple[float, int, float], theirs: tuple[float, int, float] | None
) -> None:
    """``report`` with the CPU times beside the wall times (and their ratio)."""
    line = f"{what:<34} ours {ours[0]:7.2f} s cpu {ours[2]:7.2f} s {ours[1] / 1024:7.0f} MiB"
    if theirs is not None:
        line += f" | Java {theirs[0]:7.2f} s cpu {theirs[2]:7.2f} s {theirs[1] / 1024:7.0f} MiB"
        line += f" | Java/ours {theirs[0] / ours[0]:5.2f} (cpu {theirs[2] / ours[2]:5.2f})"
    print(line, flush=True)


def java(oracle: Path, program: str, *args: str) -> list[str]:
    return [str(oracle / "hj"), program, *args]


def ours_chain(folder: Path) -> list[list[str]]:
    return [
        [*HAREM, "align", "--cd", "cd.xml", "--run", "run.xml", "-o", "r.alinhado"],
        [*HAREM, "avalida", "r.alinhado", "-o", "r.avalida"],
        [*HAREM, "veus", "--style", "harem", "r.avalida", "-o", "r.veu"],
        [*HAREM, "altida", "r.veu", "-o", "r.alts"],
        [*HAREM, "ida2id", "r.alts", "-o", "r.ida"],
    ]


def chain_time(commands: list[list[str]], folder: Path, outputs: list[Path | None]) -> tuple:
    total, peak = 0.0, 0
    for command, out in zip(commands, outputs, strict=True):
        elapsed, rss = timed(command, folder, out)
        total += elapsed
        peak = max(peak, rss)
    return total, peak


def report(what: str, ours: tuple[float, int], theirs: tuple[float, int] | None) -> None:
    line = f"{what:<34} ours {ours[0]:7.2f} s {ours[1] / 1024:7.0f} MiB"
    if theirs is not None:
        line += f" | Java {theirs[0]:7.2f} s {theirs[1] / 1024:7.0f} MiB"
        line += f" | Java/ours {theirs[0] / ours[0]:5.2f}"
    print(line, flush=True)


def make_inputs(kind: str, folder: Path, size: int, seed: int) -> None:
    """Write one folder's inputs in a child process, so the timed commands' parent stays small.

    (A child forked from a big parent starts with the parent's pages, and
    ``ru_maxrss`` would count them.)
    """
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, __file__, "--make", kind, str(folder), str(size), str(seed)], check=True
    )


def write_inputs(kind: str, folder: Path, size: int, seed: int) -> None:
    if kind == "second":
        (folder / "cd.xml").write_bytes(replicate(read_raw(SECOND_CD), size, seed))
        (folder / "run.xml").write_bytes(replicate(read_raw(SECOND_RUN), size, seed))
    elif kind == "first":
        (folder / "cd.xml").write_bytes(replicate(read_raw(FIRST_CD), size, seed))
        (folder / "run.xml").write_bytes(replicate(read_raw(FIRST_RUN), size, seed))
    else:
        (folder / "cd.xml").write_bytes(one_line_document(size))


def count_records(path: Path) -> int:
    """Record lines (``GOLD ---> [...]``) of an alignment-record file."""
    with path.open("rb") as handle:
        return sum(1 for raw in handle if b" ---> " in raw and not raw.startswith(b"<VERIF"))


RECORD_STAGES = (
    "avalida",
    "veus",
    "altida",
    "ida2id",
    "ida2id-bootstrap",
    "vizir",
    "altmor",
    "ida2mor",
    "ida2mor-bootstrap",
)
"""Stages ``--record-stages`` may name; ``ida2id-bootstrap`` and ``ida2mor-bootstrap`` are
ida2id and ida2mor with their default 1,000 resamples (the others run with ``--bootstrap 0``)."""
DEFAULT_RECORD_STAGES = "avalida,veus,altida,ida2id,vizir,altmor,ida2mor,ida2mor-bootstrap"


def record_stages(second: Path, first: Path, size: int, args: argparse.Namespace) -> None:
    """Each record stage alone (one process, median of ``--repeat``), in records read per second.

    Second HAREM xN: avalida, veus, altida, ida2id (``--bootstrap 0``: the
    parsing, not the resampling; ``ida2id-bootstrap`` with the default 1,000
    resamples); First HAREM xN: vizir, altmor, ida2mor.  ``--record-stages``
    picks some of them; the inputs a picked stage reads are made by the stages
    before it (untimed when not picked).
    """
    wanted = [s for s in args.record_stages.split(",") if s]
    unknown = sorted(set(wanted) - set(RECORD_STAGES))
    if unknown:
        raise SystemExit(f"unknown record stages: {', '.join(unknown)}")
    timed([*HAREM, "align", "--cd", "cd.xml", "--run", "run.xml", "-o", "r.alinhado"], second)
    morph = {"vizir", "altmor", "ida2mor", "ida2mor-bootstrap"} & set(wanted)
    if morph:
        if not first.exists():
            make_inputs("first", first, size, args.seed)
        timed([*HAREM, "align", "--cd", "cd.xml", "--run", "run.xml", "-o", "r.alinhado"], first)
        timed([*HAREM, "avalida", "r.alinhado", "-o", "r.avalida"], first)
        timed([*HAREM, "veus", "--style", "harem", "r.avalida", "-o", "r.vizir"], first)
    steps = [
        ("avalida", second, "avalida", "r.alinhado", ["-o", "r.avalida"]),
        ("veus", second, "veus", "r.avalida", ["--style", "harem", "-o", "r.veu"]),
        ("altida", second, "altida", "r.veu", ["-o", "r.alts"]),
        ("ida2id", second, "ida2id", "r.alts", ["--bootstrap", "0", "-o", "r.ida"]),
        ("ida2id-bootstrap", second, "ida2id", "r.alts", ["-o", "r.ida"]),
        ("vizir", first, "vizir", "r.vizir", ["-abs", "-o", "r.vz"]),
        ("altmor", first, "altmor", "r.vz", ["-o", "r.altmor"]),
        ("ida2mor", first, "ida2mor", "r.altmor", ["-abs", "--bootstrap", "0", "-o", "r.mor"]),
        ("ida2mor-bootstrap", first, "ida2mor", "r.altmor", ["-abs", "-o", "r.mor"]),
    ]
    last = max((i for i, step in enumerate(steps) if step[0] in wanted), default=-1)
    for name, folder, stage, source, rest in steps[: last + 1]:
        if folder is first and not morph:
            continue
        command = [*HAREM, stage, source, *rest]
        if name not in wanted:
            if stage != "ida2id":
                timed(command, folder)  # an input of a later stage
            continue
        elapsed, rss, cpu = medians(args.repeat, lambda f=folder, c=command: timed_cpu(c, f))
        records = count_records(folder / source)
        print(
            f"{name:<17} x{size:<3} {records:>9,} records {elapsed:7.2f} s "
            f"{records / elapsed:>10,.0f} records/s (CPU {cpu:6.2f} s "
            f"{records / cpu:>10,.0f} records/s) {rss / 1024:5.0f} MiB",
            flush=True,
        )


_DOCUMENT_LINE = re.compile(rb"([A-Za-z]+-[\w-]+)( \S+ \S+\r?)$")


def repeat_veus(source: Path, target: Path, records: int) -> int:
    """Write ``source`` (a First HAREM Véus result) with its documents repeated.

    Lines before the first document line are kept once; the documents
    (a document line and what follows it) are written again and again, copy
    k under ``<id>-x<k>``, until at least ``records`` records are written.
    Returns how many.
    """
    lines = source.read_bytes().split(b"\n")
    starts = [i for i, line in enumerate(lines) if _DOCUMENT_LINE.match(line)]
    head, body = lines[: starts[0]], lines[starts[0] :]
    if body and body[-1] == b"":
        body.pop()
    per_copy = sum(1 for line in body if b" ---> " in line)
    copies = -(-records // per_copy)
    with target.open("wb") as out:
        for line in head:
            out.write(line + b"\n")
        for copy in range(copies):
            for line in body:
                if copy:
                    line = _DOCUMENT_LINE.sub(
                        lambda m, c=copy: m.group(1) + b"-x%d" % c + m.group(2), line
                    )
                out.write(line + b"\n")
    return per_copy * copies


def morph_big(folder: Path, args: argparse.Namespace) -> None:
    """The morphology chain on one Véus file of at least ``--morph-records`` records."""
    if not (folder / "r.veu").exists():
        make_inputs("first", folder, 1, args.seed)
        for command in ours_chain(folder)[:2] + [
            [*HAREM, "veus", "--style", "harem", "r.avalida", "-o", "r.veu"]
        ]:
            timed(command, folder)
    records = repeat_veus(folder / "r.veu", folder / "big.veu", args.morph_records)
    size = (folder / "big.veu").stat().st_size / 1e6
    print(f"# Véus file: {records:,} records, {size:.0f} MB", flush=True)
    steps = [
        ("vizir", [*HAREM, "vizir", "-abs", "big.veu", "-o", "big.vizir"], "big.veu"),
        ("altmor", [*HAREM, "altmor", "big.vizir", "-o", "big.altmor"], "big.vizir"),
        ("ida2mor", [*HAREM, "ida2mor", "big.altmor", "-o", "big.mor"], "big.altmor"),
        (
            "ida2mor/0",
            [*HAREM, "ida2mor", "big.altmor", "--bootstrap", "0", "-o", "big.mor0"],
            "big.altmor",
        ),
    ]
    walls, cpus = {}, {}
    for name, command, source in steps:
        runs = [timed_cpu(command, folder) for _ in range(args.repeat)]
        wall = walls[name] = statistics.median(run[0] for run in runs)
        cpu = cpus[name] = statistics.median(run[2] for run in runs)
        rss = max(run[1] for run in runs)
        read = count_records(folder / source)
        print(
            f"{name:<9} {read:>9,} records {wall:7.2f} s {read / wall:>10,.0f} records/s "
            f"(CPU {cpu:6.2f} s {read / cpu:>10,.0f} records/s) {rss / 1024:5.0f} MiB",
            flush=True,
        )
    for label, last in (("1,000 resamples", "ida2mor"), ("--bootstrap 0", "ida2mor/0")):
        wall = walls["vizir"] + walls["altmor"] + walls[last]
        cpu = cpus["vizir"] + cpus["altmor"] + cpus[last]
        print(
            f"chain vizir → altmor → ida2mor ({label}): {wall:.2f} s, "
            f"{records / wall:,.0f} records/s end to end (CPU {cpu:.2f} s, "
            f"{records / cpu:,.0f} records/s)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,10,50", help="collection copies (default 1,10,50)")
    parser.add_argument(
        "--stages",
        default="align,chain,morph,line",
        help="align, chain, morph, line, records (each record stage alone, records/s), "
        "morphbig (the morphology chain on one big Véus file)",
    )
    parser.add_argument(
        "--morph-records",
        type=int,
        default=500_000,
        help="records of the morphbig Véus file (default 500000)",
    )
    parser.add_argument(
        "--record-stages",
        default=DEFAULT_RECORD_STAGES,
        help=f"with --stages records, which of {', '.join(RECORD_STAGES)} "
        f"(default {DEFAULT_RECORD_STAGES})",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--line-mb", type=int, default=50)
    parser.add_argument("--seed", type=int, default=2010)
    parser.add_argument("--no-oracle", action="store_true", help="do not run the Java programs")
    parser.add_argument("--make", nargs=4, metavar=("KIND", "DIR", "SIZE", "SEED"), help="internal")
    args = parser.parse_args()
    if args.make:
        kind, folder, size, seed = args.make
        write_inputs(kind, Path(folder), int(size), int(seed))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    stages = set(args.stages.split(","))
    oracle = None if args.no_oracle else oracle_home()
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, medians of {args.repeat}"
    )
    # Byte-compile the package as an installation would: under
    # PYTHONDONTWRITEBYTECODE=1 every timed process would compile it again.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "harem_pipeline")], check=True
    )
    with tempfile.TemporaryDirectory(prefix="harem-bench-") as tmp:
        if "morphbig" in stages:
            morph_big(Path(tmp) / "first-big", args)
        for size in sizes:
            folder = Path(tmp) / f"second-x{size}"
            if stages & {"align", "chain", "records"}:
                make_inputs("second", folder, size, args.seed)
            if "align" in stages:
                aligned, java_aligned, ratios = interleaved(
                    args.repeat,
                    lambda f=folder: timed_cpu(
                        [*HAREM, "align", "--cd", "cd.xml", "--run", "run.xml", "-o", "r.alinhado"],
                        f,
                    ),
                    None
                    if oracle is None
                    else lambda f=folder: timed_cpu(
                        java(oracle, "Aligner", "-submissao", "run.xml", "-cd", "cd.xml"),
                        f,
                        f / "j.alinhado",
                    ),
                )
                report_cpu(f"align Second HAREM x{size}", aligned, java_aligned)
                report_ratios(ratios)
            if "chain" in stages:
                commands = ours_chain(folder)
                jc = None
                if oracle is not None:
                    jc = [
                        java(oracle, "Aligner", "-submissao", "run.xml", "-cd", "cd.xml"),
                        java(oracle, "IndividualAlignmentEvaluator", "-alinhamento", "j.alinhado"),
                        java(oracle, "GlobalAlignmentEvaluator", "-alinhamento", "j.avalida"),
                    ]
                outs = [folder / "j.alinhado", folder / "j.avalida", folder / "j.globalid"]
                ours, theirs, ratios = interleaved(
                    args.repeat,
                    lambda f=folder, c=commands: chain_time(c, f, [None] * len(c)),
                    None if jc is None else lambda f=folder, c=jc, o=outs: chain_time(c, f, o),
                )
                report(f"identification chain x{size}", ours, theirs)
                report_ratios(ratios)
            if "morph" in stages:
                first = Path(tmp) / f"first-x{size}"
                make_inputs("first", first, size, args.seed)
                for command in ours_chain(first)[:2] + [
                    [*HAREM, "veus", "--style", "harem", "r.avalida", "-o", "r.vizir"]
                ]:
                    timed(command, first)
                morph = [
                    [*HAREM, "vizir", "-abs", "r.vizir", "-o", "r.vz"],
                    [*HAREM, "altmor", "r.vz", "-o", "r.altmor"],
                    [*HAREM, "ida2mor", "r.altmor", "-abs", "-o", "r.mor"],
                ]
                ours = medians(args.repeat, lambda f=first, c=morph: chain_time(c, f, [None] * 3))
                report(f"morphology First HAREM x{size}", ours, None)
            if "records" in stages:
                record_stages(folder, Path(tmp) / f"first-x{size}", size, args)
        if "line" in stages and args.line_mb:
            folder = Path(tmp) / "line"
            make_inputs("line", folder, args.line_mb, args.seed)
            ours = medians(
                1,
                lambda: timed(
                    [*HAREM, "align", "--cd", "cd.xml", "--run", "cd.xml", "-o", "r.alinhado"],
                    folder,
                ),
            )
            report(f"align one {args.line_mb} MB line (x1)", ours, None)


if __name__ == "__main__":
    main()
