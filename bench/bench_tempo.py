"""Benchmark of ``harem tempo`` beside the official ``AvalTEMPO.awk`` (gawk).

The input is an Emir file of the TEMPO collection repeated ``--times`` times
(default 50): ``data/reference/tempo/edit1.veu.alts.emir.gz`` (the
collection against one of its edited runs, 2,123 lines: 234 TEMPO records
with wrong and right attributes), its ``#`` header once, then its documents
``--times`` times, each copy's DOC lines renamed.  Each side is one whole
process per mode (1, 2, 3), the figure the median over ``--repeat`` runs of
the three modes' total: ``harem -q tempo X --mode m`` and, where ``gawk``
and ``AVALTEMPO`` (the path of the official ``AvalTEMPO.awk``, which does
not ship) are there, ``gawk --use-lc-numeric -f AvalTEMPO.awk -v MODO=m X``
in a ``pt_PT`` ISO-8859-1 locale, the 2008 settings (``LC_ALL``, default
``pt_PT.iso88591``).  The two outputs are compared byte for byte (and the
side files) before anything is timed.  Not part of the test suite.

Usage: ``AVALTEMPO=/path/AvalTEMPO.awk python bench/bench_tempo.py [--times 50] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import gzip
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
EMIR = ROOT / "data" / "reference" / "tempo" / "edit1.veu.alts.emir.gz"
HAREM = str(Path(sys.executable).with_name("harem"))
MODES = (1, 2, 3)


def make_input(times: int, target: Path) -> int:
    """The Emir file repeated ``times`` times into ``target``; its number of lines."""
    lines = gzip.decompress(EMIR.read_bytes()).split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    header, body = lines[0], lines[1:]
    out = [header]
    for copy in range(times):
        out += [
            line.replace(b"DOC ", f"DOC c{copy}-".encode(), 1) if line.startswith(b"DOC ") else line
            for line in body
        ]
    target.write_bytes(b"\n".join(out) + b"\n")
    return len(out)


def ours(source: Path, mode: int, work: Path) -> list[str]:
    out = work / f"ours.m{mode}.tempo"
    return [HAREM, "-q", "tempo", str(source), "--mode", str(mode), "-o", str(out),
            "--errors", str(work / f"ours.m{mode}.ERROS.txt")]  # fmt: skip


def gawk(awk: str, source: Path, mode: int) -> list[str]:
    return ["gawk", "--use-lc-numeric", "-f", awk, "-v", f"MODO={mode}", str(source)]


def run_gawk(awk: str, source: Path, mode: int, work: Path, env: dict[str, str]) -> None:
    errors = Path(f"{source}.ERROS.txt")
    errors.unlink(missing_ok=True)
    with open(work / f"gawk.m{mode}.tempo", "wb") as handle:
        subprocess.run(gawk(awk, source, mode), stdout=handle, stderr=subprocess.DEVNULL,
                       env=env, check=True)  # fmt: skip
    if errors.exists():
        errors.replace(work / f"gawk.m{mode}.ERROS.txt")


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--times", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    awk = os.environ.get("AVALTEMPO")
    env = {**os.environ, "LC_ALL": os.environ.get("LC_ALL", "pt_PT.iso88591")}
    with_gawk = bool(awk) and Path(awk).is_file() and shutil.which("gawk") is not None
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source = work / "t.emir"
        lines = make_input(args.times, source)
        print(f"input: {EMIR.name} x{args.times}: {lines:,} lines, "
              f"{source.stat().st_size / 1e6:.1f} MB")  # fmt: skip
        print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs")

        def ours_all() -> None:
            for mode in MODES:
                subprocess.run(ours(source, mode, work), check=True)

        def gawk_all() -> None:
            for mode in MODES:
                run_gawk(awk, source, mode, work, env)  # type: ignore[arg-type]

        ours_all()
        if with_gawk:
            gawk_all()
            for mode in MODES:
                for name in (f"m{mode}.tempo", f"m{mode}.ERROS.txt"):
                    mine, theirs = work / f"ours.{name}", work / f"gawk.{name}"
                    if mine.exists() != theirs.exists() or (
                        mine.exists() and mine.read_bytes() != theirs.read_bytes()
                    ):
                        sys.exit(f"different outputs: {name}")
            print("outputs: byte-equal in the three modes (.tempo and ERROS.txt)")
        mine = [timed(ours_all) for _ in range(args.repeat)]
        print(f"harem tempo, modes 1-3: median {statistics.median(mine):.3f} s "
              f"({', '.join(f'{t:.3f}' for t in mine)})")  # fmt: skip
        if with_gawk:
            theirs = [timed(gawk_all) for _ in range(args.repeat)]
            print(f"gawk AvalTEMPO, modes 1-3: median {statistics.median(theirs):.3f} s "
                  f"({', '.join(f'{t:.3f}' for t in theirs)})")  # fmt: skip
            ratio = statistics.median(mine) / statistics.median(theirs)
            print(f"ratio ours / gawk: {ratio:.2f}")
        else:
            print("gawk or AVALTEMPO missing: ours only")


if __name__ == "__main__":
    main()
