"""Hash every output of every stage on fixed campaigns, to prove a refactoring moved no byte.

Run it before a change and after, and compare::

    python bench/migration_hashes.py -o before.tsv
    ... change the code ...
    python bench/migration_hashes.py -o after.tsv --compare before.tsv

The campaigns cover both collection formats (the First HAREM text format with
MORF, the Second HAREM XML format), real and simulated runs, the official veil
grid, the TEMPO and ReRelEM tracks, and two hash seeds with two worker counts
for the default campaign.  Manifests are left out: they record digests of the
code and timings, which a refactoring is meant to change.  This harness is not
part of the test suite: the suite holds the reference outputs; this checks that
a rewrite of a stage's body keeps every intermediate the same, on inputs the
reference files do not cover.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
# The official result pages print the time they were made (as the Java's do).
GENERATED = re.compile(rb"Pagina gerada automaticamente em: [^<\r\n]*")
HAREM = [str(Path(sys.executable).parent / "harem")]


def simulate(cd: Path, profile: str, seed: int, out: Path) -> None:
    """Write a simulated run of ``cd`` (the simulator is itself under test here)."""
    harem(["simulate", "--cd", str(cd), "--profile", profile, "--seed", str(seed), "-o", str(out)])


def harem(args: list[str], env: dict[str, str] | None = None) -> None:
    subprocess.run([*HAREM, *args], check=True, env=env, cwd=ROOT)


def campaigns(work: Path) -> dict[str, str]:
    """Build each campaign's folder under ``work``; return name → pipeline.yaml text."""
    first = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"
    second = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
    mini = DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz"
    tempo = DATA / "lampada2" / "CDSegundoHAREM_TEMPO.xml.gz"
    for name in ("default", "second", "mini", "tempo"):
        (work / name / "runs").mkdir(parents=True)
    for run in (DATA / "campaign").glob("*.txt.gz"):
        shutil.copy(run, work / "default" / "runs" / run.name)
    shutil.copy(
        DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz",
        work / "second" / "runs" / "real.xml.gz",
    )
    simulate(second, "average", 2, work / "second" / "runs" / "average.xml")
    simulate(mini, "strong", 3, work / "mini" / "runs" / "strong.xml")
    simulate(mini, "weak", 4, work / "mini" / "runs" / "weak.xml")
    simulate(tempo, "average", 5, work / "tempo" / "runs" / "average.xml")
    simulate(tempo, "perfect", 5, work / "tempo" / "runs" / "perfect.xml")
    return {
        "default": f"collection: {first}\nruns: [runs/*.txt.gz]\noutput: out\n"
        "subsets: [total, pt, br, jornalistico, pt.jornalistico]\nscenarios: [absolute, relative]\n"
        "style: harem\nworkers: 2\n",
        "second": f"collection: {second}\nruns: [runs/*]\noutput: out\nsubsets: [total]\n"
        "style: muc\nveils: official\nworkers: 2\n",
        "mini": f"collection: {mini}\nruns: [runs/*]\noutput: out\nsubsets: [total]\n"
        "scenarios: [absolute, relative]\nstyle: relaxado\nworkers: 2\n",
        "tempo": f"collection: {tempo}\nruns: [runs/*]\noutput: out\nsubsets: [total]\n"
        "style: muc\nveils: [total, tempo]\ntempo: {modes: [1, 2, 3]}\nworkers: 2\n",
    }


def digest_tree(folder: Path, label: str) -> list[str]:
    rows = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "manifest" in path.name or path.name.startswith("."):
            continue
        digest = hashlib.sha256(GENERATED.sub(b"", path.read_bytes())).hexdigest()
        rows.append(f"{label}/{path.relative_to(folder)}\t{digest}")
    return rows


def run_all(work: Path) -> list[str]:
    rows: list[str] = []
    for name, text in campaigns(work).items():
        config = work / name / "pipeline.yaml"
        config.write_text(text, encoding="utf-8")
        harem(["run", "--config", str(config)])
        rows += digest_tree(work / name / "out", name)
    # The default campaign again under another hash seed and one worker: same bytes.
    config = work / "default" / "pipeline.yaml"
    config.write_text(
        config.read_text()
        .replace("output: out", "output: out2")
        .replace("workers: 2", "workers: 1")
    )
    harem(["run", "--config", str(config)], env={**os.environ, "PYTHONHASHSEED": "7"})
    rows += digest_tree(work / "default" / "out2", "default")
    return sorted(set(rows))


def compare(before: list[str], after: list[str]) -> int:
    old = dict(row.split("\t") for row in before)
    new = dict(row.split("\t") for row in after)
    lost, added = sorted(old.keys() - new.keys()), sorted(new.keys() - old.keys())
    moved = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    for title, keys in (("missing", lost), ("new", added), ("changed", moved)):
        for key in keys:
            print(f"{title}\t{key}")
    print(
        f"{len(old)} files before, {len(new)} after: "
        f"{len(moved)} changed, {len(lost)} missing, {len(added)} new"
    )
    return 1 if lost or added or moved else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="where to write the hash list (TSV)"
    )
    parser.add_argument("--compare", type=Path, help="an earlier hash list to compare with")
    parser.add_argument("--keep", type=Path, help="build the campaigns here and keep them")
    parser.add_argument(
        "--rehash", type=Path, help="hash the campaigns already built in this folder (by --keep)"
    )
    args = parser.parse_args()
    if args.rehash:
        rows = sorted(
            row
            for name in ("default", "second", "mini", "tempo")
            for row in digest_tree(args.rehash / name / "out", name)
        )
    elif args.keep:
        work = args.keep
        shutil.rmtree(work, ignore_errors=True)
        rows = run_all(work)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            rows = run_all(Path(tmp))
    args.output.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    if args.compare:
        return compare(args.compare.read_text(encoding="utf-8").splitlines(), rows)
    print(f"{len(rows)} files hashed into {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
