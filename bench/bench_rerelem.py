"""Time the ReRelEM chain against the official programs, side by side.

    python bench/bench_rerelem.py [--alts FILE] [--oracle HJ] [--repeat 3]

Both chains run on the same ``.alts`` (by default the shipped real run,
``data/reference/gabriel/cenario4_categs_muc.veu.alts.gz``), each step in
a fresh process as ``Originais/Avaliacao.sh`` runs them: expand, select,
normalize, triples once, then filter, evaluate and summary for each of
the five relation scenarios (19 programs).  ``--oracle`` is the script that
runs one official program (``hj CLASS ARGS…``, see
docs/spec/rerelem.md); without it only our chain is timed.  Ours is timed
twice: the 19 ``harem rerelem`` commands, and the library's ``run_chain``
in one process.  Each figure is the median of ``--repeat`` runs (runs
interleaved); the outputs of the two chains are compared after the ``#``
lines and the ratios printed.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ALTS = ROOT / "data" / "reference" / "gabriel" / "cenario4_categs_muc.veu.alts.gz"
SCENARIOS = {
    "todas": [],
    "soutra": ["ident", "inclui", "incluido", "sede_de", "ocorre_em"],
    "ident": ["ident"],
    "inclusao": ["inclui", "incluido"],
    "localizacao": ["sede_de", "ocorre_em"],
}
STEPS = ("expandido", "selec", "normalizado", "triplas")
JAVA = {
    "expandido": ["RelationExpanderM2", "-exptudo", "sim"],
    "selec": ["AlignmentSelector"],
    "normalizado": ["IDNormalizer"],
    "triplas": ["AlignmentsToTriples"],
}
OURS = {"expandido": "expand", "selec": "select", "normalizado": "normalize", "triplas": "triples"}


def _run(command: list[str], out: Path | None, cwd: Path) -> float:
    start = time.perf_counter()
    with open(out, "wb") if out is not None else open("/dev/null", "wb") as handle:
        subprocess.run(command, cwd=cwd, stdout=handle, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def java_chain(oracle: Path, folder: Path) -> dict[str, float]:
    """The 19 official programs; seconds of the expander and of the whole chain."""
    times: dict[str, float] = {}
    name = "x.alts"
    total = 0.0
    for step in STEPS:
        command = [str(oracle), JAVA[step][0], "-alinhamento", name, *JAVA[step][1:]]
        seconds = _run(command, folder / f"{name}.{step}", folder)
        times[step] = seconds
        total += seconds
        name = f"{name}.{step}"
    for scenario, types in SCENARIOS.items():
        filtered = f"{name}.{scenario}.filtrado"
        extra = ["-filtro", ";".join(types)] if types else []
        total += _run(
            [str(oracle), "RelationsFilter", "-alinhamento", name, *extra],
            folder / filtered,
            folder,
        )
        total += _run(
            [str(oracle), "RelationsEvaluatorM2", "-alinhamento", filtered],
            folder / f"{filtered}.avaliado",
            folder,
        )
        total += _run(
            [str(oracle), "GlobalRelationsEvaluatorM2", "-alinhamento", f"{filtered}.avaliado"],
            folder / f"{filtered}.avaliado.resumo",
            folder,
        )
    times["chain"] = total
    return times


def our_commands(folder: Path) -> dict[str, float]:
    """The 19 ``harem rerelem`` commands, each a fresh process."""
    harem = [sys.executable, "-m", "harem_pipeline", "-q", "rerelem"]
    times: dict[str, float] = {}
    name = "x.alts"
    total = 0.0
    for step in STEPS:
        seconds = _run([*harem, OURS[step], name, "-o", f"{name}.{step}"], None, folder)
        times[step] = seconds
        total += seconds
        name = f"{name}.{step}"
    for scenario in SCENARIOS:
        filtered = f"{name}.{scenario}.filtrado"
        total += _run(
            [*harem, "filter", name, "--scenario", scenario, "-o", filtered], None, folder
        )
        total += _run([*harem, "evaluate", filtered], None, folder)
        total += _run([*harem, "summary", f"{filtered}.avaliado"], None, folder)
    times["chain"] = total
    return times


def our_library(folder: Path) -> float:
    """``run_chain`` in one process (imports included)."""
    code = (
        "from harem_pipeline.pipeline.rerelem import run_chain; "
        f"run_chain({str(folder / 'lib' / 'x.alts')!r})"
    )
    return _run([sys.executable, "-c", code], None, folder)


def _compared(path: Path) -> list[bytes]:
    lines = path.read_bytes().replace(b"]::[", b"]:[").split(b"\n")
    return [line for line in lines if not line.startswith(b"#")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alts", type=Path, default=DEFAULT_ALTS)
    parser.add_argument("--oracle", type=Path, help="hj: runs one official program")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = args.alts.read_bytes()
        if args.alts.suffix == ".gz":
            data = gzip.decompress(data)
        for sub in ("java", "ours", "lib"):
            (work / sub).mkdir()
            (work / sub / "x.alts").write_bytes(data)
        java: list[dict[str, float]] = []
        ours: list[dict[str, float]] = []
        library: list[float] = []
        for _ in range(args.repeat):
            if args.oracle is not None:
                java.append(java_chain(args.oracle.resolve(), work / "java"))
            ours.append(our_commands(work / "ours"))
            library.append(our_library(work))
        print(f"input {args.alts.name}, {args.repeat} run(s), medians in seconds")
        rows = [("harem rerelem, 19 commands", ours)]
        if java:
            rows.insert(0, ("official programs, 19 JVMs", java))
        for label, runs in rows:
            expand = statistics.median(r["expandido"] for r in runs)
            chain = statistics.median(r["chain"] for r in runs)
            print(f"{label:32s} expand {expand:7.2f}  chain {chain:7.2f}")
        print(f"{'run_chain, one process':32s} {'':14s} chain {statistics.median(library):7.2f}")
        if java:
            j_expand = statistics.median(r["expandido"] for r in java)
            j_chain = statistics.median(r["chain"] for r in java)
            o_expand = statistics.median(r["expandido"] for r in ours)
            o_chain = statistics.median(r["chain"] for r in ours)
            ratios = f"ratio expand {j_expand / o_expand:.1f}x, chain (commands)"
            print(f"{ratios} {j_chain / o_chain:.1f}x,")
            print(f"      chain (one process) {j_chain / statistics.median(library):.1f}x")
            same = all(
                _compared(work / "java" / p.name) == _compared(p)
                for p in sorted((work / "ours").iterdir())
                if p.name != "x.alts" and not p.name.endswith(".json")
            )
            print("outputs equal after the # lines:", same)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
