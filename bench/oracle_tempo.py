"""Differential test of ``harem tempo`` against the official ``AvalTEMPO.awk`` on simulated runs.

For each ``PROFILE:SEED`` a run of the Second HAREM TEMPO collection
(``data/lampada2/CDSegundoHAREM_TEMPO.xml.gz``) is simulated, with its TEMPO
attributes perturbed, and taken through our chain to an ``.emir`` and its
``.altrel`` (align, avalida, veus in the HAREM style, alts, emir, altsem).
On each, in every mode (1–3), with and without ``TODOS=0`` (ours:
``--tempo-only``), gawk runs the official script as in 2008 (a ``pt_PT``
ISO-8859-1 locale, ``--use-lc-numeric``) and ``harem tempo`` runs beside it;
the ``.tempo`` and the side file ``ERROS.txt`` must be the same bytes.

Runs only where gawk and the script are (``AVALTEMPO``, the path of the
official ``AvalTEMPO.awk``, which does not ship; ``LC_ALL``, default
``pt_PT.iso88591``).  Never run by the test suite.

    AVALTEMPO=/path/AvalTEMPO.awk python bench/oracle_tempo.py [--runs strong:1 weak:13]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLLECTION = ROOT / "data" / "lampada2" / "CDSegundoHAREM_TEMPO.xml.gz"
HAREM = [sys.executable, "-m", "harem_pipeline", "-q"]
MODES = (1, 2, 3)


def emir_files(folder: Path, profile: str, seed: int) -> list[Path]:
    """A simulated run's ``.emir`` and ``.altrel``, made by our chain in ``folder``."""
    steps = [
        ["simulate", "--cd", str(COLLECTION), "--profile", profile, "--seed", str(seed)],
        ["align", "--cd", str(COLLECTION), "--run", "run.xml"],
        ["avalida", "x.alinhado"],
        ["veus", "x.avalida", "--style", "harem"],
        ["alts", "x.veu"],
        ["emir", "x.alts"],
        ["altsem", "x.emir"],
    ]
    outputs = ["run.xml", "x.alinhado", "x.avalida", "x.veu", "x.alts", "x.emir", "x.altrel"]
    for step, output in zip(steps, outputs, strict=True):
        subprocess.run(
            [*HAREM, *step, "-o", output], cwd=folder, check=True, stderr=subprocess.DEVNULL
        )
    return [folder / "x.emir", folder / "x.altrel"]


def official(awk: str, source: Path, mode: int, everything: bool, env: dict[str, str]) -> Path:
    """``AvalTEMPO.awk`` on ``source``; its output, its side file moved beside it."""
    side = Path(f"{source}.ERROS.txt")
    side.unlink(missing_ok=True)
    out = Path(f"{source}.gawk.m{mode}.{'all' if everything else 'tempo'}")
    args = ["gawk", "--use-lc-numeric", "-f", awk, "-v", f"MODO={mode}"]
    if not everything:
        args += ["-v", "TODOS=0"]
    with out.open("wb") as handle:
        subprocess.run(
            [*args, str(source)], stdout=handle, stderr=subprocess.DEVNULL, env=env, check=True
        )
    if side.exists():
        side.rename(f"{out}.ERROS.txt")
    return out


def ours(source: Path, mode: int, everything: bool) -> Path:
    """``harem tempo`` on ``source``, its side file named as ``official`` names the Java's."""
    out = Path(f"{source}.ours.m{mode}.{'all' if everything else 'tempo'}")
    only = [] if everything else ["--tempo-only"]
    subprocess.run(
        [*HAREM, "tempo", str(source), "--mode", str(mode), *only, "-o", str(out),
         "--errors", f"{out}.ERROS.txt"],
        check=True,
    )  # fmt: skip
    return out


def same_file(a: Path, b: Path) -> bool:
    """Both absent, or both there with the same bytes."""
    if not a.exists() or not b.exists():
        return a.exists() == b.exists()
    return filecmp.cmp(a, b, shallow=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--runs", nargs="+", default=["strong:1", "average:7", "weak:13"], metavar="PROFILE:SEED"
    )
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    args = parser.parse_args()
    awk = os.environ.get("AVALTEMPO")
    if not awk or shutil.which("gawk") is None:
        print("gawk or AVALTEMPO missing: nothing to do")
        return 0
    env = {**os.environ, "LC_ALL": os.environ.get("LC_ALL", "pt_PT.iso88591")}
    with tempfile.TemporaryDirectory(prefix="oracle-tempo-") as tmp:
        work = Path(args.work or tmp)
        compared = different = 0
        for run in args.runs:
            profile, _, seed = run.partition(":")
            folder = work / f"{profile}{seed}"
            folder.mkdir(parents=True, exist_ok=True)
            for source in emir_files(folder, profile, int(seed)):
                for mode in MODES:
                    for everything in (True, False):
                        theirs = official(awk, source, mode, everything, env)
                        mine = ours(source, mode, everything)
                        for a, b in ((theirs, mine), (Path(f"{theirs}.ERROS.txt"),
                                                      Path(f"{mine}.ERROS.txt"))):  # fmt: skip
                            if not a.exists() and not b.exists():
                                continue
                            compared += 1
                            if not same_file(a, b):
                                different += 1
                                print(f"differs: {a} {b}")
        print(f"{compared} files compared, {different} different")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
