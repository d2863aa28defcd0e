"""Differential test of the semantic chain against the official 2010 programs.

For simulated runs of the Second HAREM and Mini-HAREM collections, the
official identification chain (``jchain.sh``) and Véus (``jcase.sh``) make
the ``.veu`` of several cases; the official ALT organiser, spurious list,
Emir (with other weights, ``-penalizacoes nao``, ``-relativo sim``), Ida and
ALTina run on it, and so does our chain, on the same ``.veu``.  Every file
must be equal after dropping ``#`` lines and reading ``]::[`` as ``]:[``
(``.ida``: the Java's lines are the first lines of ours).

Runs only where the programs are installed: ``$HAREM_ORACLE`` or
``~/harem-oracle`` (see the project's oracle notes).  Never run by the
test suite.

    python bench/oracle_semantic.py [--seeds 1 2] [--work DIR] [--keep-reference]

``--keep-reference`` gzips two small cases into ``data/reference/simulated/``.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from oracle import oracle_home, shared_data

ROOT = Path(__file__).resolve().parent.parent
HAREM = [sys.executable, "-m", "harem_pipeline", "-q"]
COLLECTIONS = {
    "segundo": shared_data() / "lampada2/coleccoes/CDSegundoHAREMReRelEM.xml",
    "mini": shared_data() / "lampada2/coleccoes/CDPrimeiroHAREMMiniHAREM.xml",
}
CATEGORIES = "ABSTRACCAO:ACONTECIMENTO:COISA:LOCAL:OBRA:ORGANIZACAO:OUTRO:PESSOA:TEMPO:VALOR"
CASES = (
    ("total_muc", "muc", ()),
    ("total_harem", "harem", ()),
    ("total_relaxado", "relaxado", ()),
    ("PLO_muc", "muc", ("-avaliacao", "PESSOA:LOCAL:ORGANIZACAO")),
    ("categs_muc", "muc", ("-avaliacao", CATEGORIES)),
)
EMIR_VARIANTS = (
    ("pesos", ("-pesos", "1;2;1;0.5"), ("--weights", "1;2;1;0.5")),
    ("penalizacoes_nao", ("-penalizacoes", "nao"), ("--no-penalties",)),
    (
        "relativo_pesos",
        ("-relativo", "sim", "-pesos", "0.5;1;0.25;0.125"),
        ("--relative", "--weights", "0.5;1;0.25;0.125"),
    ),
)
SMALL = (".veu.alts", ".espurios", ".ida")
KEEP = {("segundo", 1, "total_muc"): SMALL, ("mini", 1, "PLO_muc"): None}
"""Cases kept by ``--keep-reference``: the files ending so (None: all of them)."""
NOT_KEPT = (".penalizacoes_nao.emir", ".relativo_pesos.emir")
"""Large files left out even then (their ``.ida`` is kept)."""


def lines_of(path: Path) -> list[str]:
    text = path.read_bytes().decode("latin-1").removesuffix("\n")
    return [line.replace("]::[", "]:[") for line in text.split("\n") if not line.startswith("#")]


def compare(java: Path, ours: Path, prefix_only: bool = False) -> str | None:
    a, b = lines_of(java), lines_of(ours)
    if prefix_only:
        b = b[: len(a)]
    if a == b:
        return None
    diff = list(difflib.unified_diff(a, b, str(java), str(ours), lineterm="", n=1))
    return "\n".join(diff[:20])


_BARE_AMPERSAND = re.compile(rb"&(?!amp;|lt;|gt;|quot;|apos;|#)")


def make_parseable(path: Path) -> None:
    """Make a simulated run well-formed XML for the official aligner (a real XML parser).

    Drops the ``<!-- simulated run ... -->`` line and escapes any bare ``&``: the
    simulator's runs used to hold a ``--cd`` in that comment and a tag cut
    inside a reference (``&amp</EM>;``); they are well-formed now, and the step
    is kept so the recorded references are remade as they were made.  The text
    (what the aligner compares) is unchanged.
    """
    lines = path.read_bytes().split(b"\n")
    kept = [line for line in lines if not line.lstrip().startswith(b"<!-- simulated run")]
    path.write_bytes(_BARE_AMPERSAND.sub(b"&amp;", b"\n".join(kept)))


def run(cmd: list[str], cwd: Path, out: Path | None = None) -> None:
    if out is None:
        subprocess.run(cmd, cwd=cwd, check=True)
    else:
        with out.open("wb") as handle:
            subprocess.run(cmd, cwd=cwd, check=True, stdout=handle)


def our_chain(work: Path, case: str) -> dict[str, Path]:
    """Our files for ``case`` from the Java's ``case.veu``, named ``ours.<suffix>``."""
    veu = work / f"{case}.veu"
    o = work / f"ours.{case}"
    made = {
        ".veu.alts": Path(f"{o}.veu.alts"),
        ".veu.alts.espurios": Path(f"{o}.veu.alts.espurios"),
        ".veu.alts.emir": Path(f"{o}.veu.alts.emir"),
        ".veu.alts.emir.ida": Path(f"{o}.veu.alts.emir.ida"),
        ".veu.alts.emir.altrel": Path(f"{o}.veu.alts.emir.altrel"),
        ".veu.alts.emir.altrel.ida": Path(f"{o}.veu.alts.emir.altrel.ida"),
        ".veu.alts.emir_relativo": Path(f"{o}.veu.alts.emir_relativo"),
        ".veu.alts.emir_relativo.ida": Path(f"{o}.veu.alts.emir_relativo.ida"),
    }
    h = HAREM
    subprocess.run([*h, "alts", str(veu), "-o", str(made[".veu.alts"])], check=True)
    alts = str(made[".veu.alts"])
    subprocess.run([*h, "espurios", alts, "-o", str(made[".veu.alts.espurios"])], check=True)
    subprocess.run([*h, "emir", alts, "-o", str(made[".veu.alts.emir"])], check=True)
    emir = str(made[".veu.alts.emir"])
    subprocess.run([*h, "altsem", emir, "-o", str(made[".veu.alts.emir.altrel"])], check=True)
    subprocess.run(
        [*h, "emir", alts, "--relative", "-o", str(made[".veu.alts.emir_relativo"])], check=True
    )
    for source in (".veu.alts.emir", ".veu.alts.emir.altrel", ".veu.alts.emir_relativo"):
        subprocess.run(
            [*h, "ida", str(made[source]), "--bootstrap", "0", "-o", str(made[source + ".ida"])],
            check=True,
        )
    return made


def differential(oracle: Path, work: Path, seeds: list[int], keep: bool) -> int:
    hj, jchain, jcase = oracle / "hj", oracle / "jchain.sh", oracle / "jcase.sh"
    failures = compared = 0
    for name, cd in COLLECTIONS.items():
        for seed in seeds:
            folder = work / f"{name}-{seed}"
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy(cd, folder / "cd.xml")
            subprocess.run(
                [
                    *HAREM,
                    "simulate",
                    "--cd",
                    str(cd),
                    "--profile",
                    "average",
                    "--seed",
                    str(seed),
                    "-o",
                    str(folder / "run.xml"),
                ],
                check=True,
            )
            make_parseable(folder / "run.xml")
            run([str(jchain), str(folder), "run.xml", "cd.xml", "x"], folder)
            for case, style, extra in CASES:
                run([str(jcase), str(folder), "x.alinhado.avalida", case, style, *extra], folder)
                made = our_chain(folder, case)
                for suffix, ours in made.items():
                    java = folder / f"{case}{suffix}"
                    problem = compare(java, ours, prefix_only=suffix.endswith(".ida"))
                    compared += 1
                    status = "ok" if problem is None else "DIFF"
                    print(f"{name} seed {seed} {case}{suffix}: {status}", flush=True)
                    if problem:
                        failures += 1
                        print(problem)
                for variant, java_args, our_args in EMIR_VARIANTS:
                    java_emir = folder / f"{case}.{variant}.emir"
                    run(
                        [
                            str(hj),
                            "SemanticAlignmentEvaluator",
                            "-alinhamento",
                            f"{case}.veu.alts",
                            *java_args,
                        ],
                        folder,
                        java_emir,
                    )
                    run(
                        [str(hj), "GlobalSemanticEvaluator", "-alinhamento", java_emir.name],
                        folder,
                        Path(f"{java_emir}.ida"),
                    )
                    ours = folder / f"ours.{case}.{variant}.emir"
                    subprocess.run(
                        [
                            *HAREM,
                            "emir",
                            str(folder / f"{case}.veu.alts"),
                            *our_args,
                            "-o",
                            str(ours),
                        ],
                        check=True,
                    )
                    subprocess.run(
                        [*HAREM, "ida", str(ours), "--bootstrap", "0", "-o", f"{ours}.ida"],
                        check=True,
                    )
                    for java, mine, prefix in (
                        (java_emir, ours, False),
                        (Path(f"{java_emir}.ida"), Path(f"{ours}.ida"), True),
                    ):
                        problem = compare(java, mine, prefix)
                        compared += 1
                        status = "ok" if problem is None else "DIFF"
                        print(f"{name} seed {seed} {java.name}: {status}", flush=True)
                        if problem:
                            failures += 1
                            print(problem)
                if keep and (name, seed, case) in KEEP:
                    keep_case(folder, name, seed, case, KEEP[name, seed, case])
    print(f"{compared} files compared, {failures} different")
    return 1 if failures else 0


def keep_case(
    folder: Path, name: str, seed: int, case: str, endings: tuple[str, ...] | None
) -> None:
    """Gzip the Java files of one case into ``data/reference/simulated/``."""
    target = ROOT / "data" / "reference" / "simulated"
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.glob(f"{case}.*")):
        if endings is not None and not path.name.endswith(endings):
            continue
        if path.name.endswith(NOT_KEPT):
            continue
        out = target / f"{name}{seed}_{path.name}.gz"
        with path.open("rb") as src, gzip.GzipFile(out, "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    parser.add_argument("--keep-reference", action="store_true")
    args = parser.parse_args()
    oracle = oracle_home()
    if oracle is None:
        print("no official programs here (HAREM_ORACLE or ~/harem-oracle): nothing to do")
        return 0
    if args.work:
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        return differential(oracle, work, args.seeds, args.keep_reference)
    with tempfile.TemporaryDirectory(prefix="oracle-semantic-") as tmp:
        return differential(oracle, Path(tmp), args.seeds, args.keep_reference)


if __name__ == "__main__":
    sys.exit(main())
