"""Differential test of the identification and semantic chains against the official 2010
programs.

For simulated runs of each collection (by default the Second HAREM and
Mini-HAREM collections; any others with ``--collection``, such as the real
collections of the official programs' ``Experimentos`` folder), and with
``--self`` the collection against itself, the official identification
chain (``jchain.sh``: Aligner, AvalIDa, Ida2ID) and Véus (``jcase.sh``) make
their files; each of our stages runs on the Java's input of that stage
(our aligner on the two collections), so every stage is compared alone:
``harem align``, ``avalida``, ``ida2id``, ``veus`` in each case's style and
veil, then the ALT organiser, spurious list, Emir (also with other weights,
``-penalizacoes nao``, ``-relativo sim``), Ida and ALTina.  Every file must
be equal after dropping ``#`` lines and reading ``]::[`` as ``]:[`` (reports:
the Java's lines are the first lines of ours; a report of ours in UTF-8 is
read as such).

Runs only where the programs are installed: ``$HAREM_ORACLE`` or
``~/harem-oracle`` (see the project's oracle notes).  Never run by the
test suite.

    python bench/oracle_chains.py [--seeds 1 2] [--profile average] [--self]
        [--collection NAME=PATH ...] [--work DIR] [--keep-reference]

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
"""Véus cases: name, style and the Java's ``AlignmentFilter`` options (ours: ``--veil``)."""
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


def lines_of(path: Path, encoding: str = "latin-1") -> list[str]:
    text = path.read_bytes().decode(encoding).removesuffix("\n")
    return [line.replace("]::[", "]:[") for line in text.split("\n") if not line.startswith("#")]


def compare(java: Path, ours: Path, prefix_only: bool = False) -> str | None:
    a, b = lines_of(java), lines_of(ours)
    if prefix_only:
        b = b[: len(a)]
    if a == b:
        return None
    try:  # a report of ours in UTF-8 (the input's encoding), the Java's in ISO-8859-1
        if lines_of(ours, "utf-8")[: len(a) if prefix_only else None] == a:
            return None
    except UnicodeDecodeError:
        pass
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


def identification_files(folder: Path) -> dict[str, tuple[Path, Path, bool]]:
    """Our aligner on the two collections, our AvalIDa and Ida2ID on the Java's inputs: each
    file with the Java's it must equal and whether that is a report (compared as a prefix)."""
    ours = folder / "ours.x"
    subprocess.run(
        [*HAREM, "align", "--cd", "cd.xml", "--run", "run.xml", "-o", f"{ours}.alinhado"],
        cwd=folder,
        check=True,
        stderr=subprocess.DEVNULL,  # the warnings: compared by the test suite's reference cases
    )
    subprocess.run(
        [*HAREM, "avalida", "x.alinhado", "-o", f"{ours}.alinhado.avalida"], cwd=folder, check=True
    )
    subprocess.run(
        [*HAREM, "ida2id", "x.alinhado.avalida", "--bootstrap", "0", "-o", f"{ours}.globalid"],
        cwd=folder,
        check=True,
    )
    return {
        ".alinhado": (folder / "x.alinhado", Path(f"{ours}.alinhado"), False),
        ".alinhado.avalida": (
            folder / "x.alinhado.avalida",
            Path(f"{ours}.alinhado.avalida"),
            False,
        ),
        ".globalid": (folder / "x.alinhado.avalida.globalid", Path(f"{ours}.globalid"), True),
    }


def our_veus(folder: Path, case: str, style: str, extra: tuple[str, ...]) -> Path:
    """Our Véus of the Java's ``.avalida`` in ``case``'s style and veil."""
    veil = ["--veil", extra[1]] if extra else []
    out = folder / f"ours.{case}.veu"
    subprocess.run(
        [*HAREM, "veus", "x.alinhado.avalida", "--style", style, *veil, "-o", str(out)],
        cwd=folder,
        check=True,
    )
    return out


class Tally:
    """Files compared and those that differ, printed as they come."""

    def __init__(self) -> None:
        self.compared = 0
        self.failures = 0

    def check(self, label: str, java: Path, ours: Path, prefix: bool) -> None:
        problem = compare(java, ours, prefix)
        self.compared += 1
        print(f"{label}: {'ok' if problem is None else 'DIFF'}", flush=True)
        if problem:
            self.failures += 1
            print(problem)


def runs_of(
    name: str, cd: Path, folder: Path, seeds: list[int], profile: str, self_run: bool
) -> list[tuple[int, Path]]:
    """The folders of ``cd``'s runs: itself (``--self``) and a simulated run per seed."""
    made = []
    for seed in ([0] if self_run else []) + seeds:
        run_folder = folder / (f"{name}-self" if seed == 0 else f"{name}-{profile}{seed}")
        run_folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(cd, run_folder / "cd.xml")
        if seed == 0:
            shutil.copy(cd, run_folder / "run.xml")
        else:
            subprocess.run(
                [
                    *HAREM,
                    "simulate",
                    "--cd",
                    str(cd),
                    "--profile",
                    profile,
                    "--seed",
                    str(seed),
                    "-o",
                    str(run_folder / "run.xml"),
                ],
                check=True,
            )
            make_parseable(run_folder / "run.xml")
        made.append((seed, run_folder))
    return made


def differential(
    oracle: Path,
    work: Path,
    collections: dict[str, Path],
    seeds: list[int],
    profile: str,
    self_run: bool,
    keep: bool,
) -> int:
    hj, jchain, jcase = oracle / "hj", oracle / "jchain.sh", oracle / "jcase.sh"
    tally = Tally()
    for name, cd in collections.items():
        for seed, folder in runs_of(name, cd, work, seeds, profile, self_run):
            label = folder.name
            run([str(jchain), str(folder), "run.xml", "cd.xml", "x"], folder)
            for suffix, (java, ours, prefix) in identification_files(folder).items():
                tally.check(f"{label} x{suffix}", java, ours, prefix)
            for case, style, extra in CASES:
                run([str(jcase), str(folder), "x.alinhado.avalida", case, style, *extra], folder)
                veu = our_veus(folder, case, style, extra)
                tally.check(f"{label} {case}.veu", folder / f"{case}.veu", veu, False)
                for suffix, ours in our_chain(folder, case).items():
                    java = folder / f"{case}{suffix}"
                    tally.check(f"{label} {case}{suffix}", java, ours, suffix.endswith(".ida"))
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
                    tally.check(f"{label} {java_emir.name}", java_emir, ours, False)
                    java_ida, our_ida = Path(f"{java_emir}.ida"), Path(f"{ours}.ida")
                    tally.check(f"{label} {java_ida.name}", java_ida, our_ida, True)
                if keep and (name, seed, case) in KEEP:
                    keep_case(folder, name, seed, case, KEEP[name, seed, case])
    print(f"{tally.compared} files compared, {tally.failures} different")
    return 1 if tally.failures else 0


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
    parser.add_argument("--seeds", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--profile", default="average", help="simulated runs' profile")
    parser.add_argument("--self", action="store_true", help="also each collection against itself")
    parser.add_argument(
        "--collection",
        action="append",
        metavar="NAME=PATH",
        help="a collection to test (repeatable; default: Second HAREM and Mini-HAREM)",
    )
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    parser.add_argument("--keep-reference", action="store_true")
    args = parser.parse_args()
    oracle = oracle_home()
    if oracle is None:
        print("no official programs here (HAREM_ORACLE or ~/harem-oracle): nothing to do")
        return 0
    collections = COLLECTIONS
    if args.collection:
        pairs = [item.partition("=") for item in args.collection]
        collections = {name: Path(path).resolve() for name, _, path in pairs}
    options = (collections, args.seeds, args.profile, args.self, args.keep_reference)
    if args.work:
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        return differential(oracle, work, *options)
    with tempfile.TemporaryDirectory(prefix="oracle-chains-") as tmp:
        return differential(oracle, Path(tmp), *options)


if __name__ == "__main__":
    sys.exit(main())
