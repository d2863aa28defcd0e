"""Our ReRelEM chain against the official programs on edited runs (drop, retype, retarget).

    python bench/oracle_rerelem.py --oracle HJ [--alts FILE] [--seed 1] [--rate 0.3]

From an ``.alts`` (by default the shipped real run) it makes three runs by
editing the golden entities' relations, each item with probability
``--rate``: ``drop`` removes it, ``retype`` gives it another type,
``retarget`` points it at another entity of the document.  On each (and
on the unedited file) it runs the official chain (``HJ CLASS ARGS…``, the
19 programs of ``Originais/Avaliacao.sh``) and ours, and compares every
file after the ``#`` lines (``]::[`` read as ``]:[``).  Exit status 1 when
a file differs; an official program that fails (they report it on standard
error and exit 0, their output cut short) stops the comparison.  The
Java's copy of the input is given the marker ``::`` the official files
write, so an ``.alts`` of ours can be compared too.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harem_pipeline.pipeline.rerelem import run_chain  # noqa: E402

DEFAULT_ALTS = ROOT / "data" / "reference" / "gabriel" / "cenario4_categs_muc.veu.alts.gz"
FILTERS = {
    "todas": [],
    "soutra": ["-filtro", "ident;inclui;incluido;sede_de;ocorre_em"],
    "ident": ["-filtro", "ident"],
    "inclusao": ["-filtro", "inclui;incluido"],
    "localizacao": ["-filtro", "sede_de;ocorre_em"],
}
NEW_TYPES = ("ident", "inclui", "incluido", "sede_de", "ocorre_em", "vinculo_inst", "natural_de")
LISTS = ("COREL", "TIPOREL", "FACS_ORIGEM", "FACS_ALVO")
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')


def edit(lines: list[str], kind: str, rate: float, seed: int) -> list[str]:
    """The golden side of every record with relations edited (``drop``/``retype``/``retarget``)."""
    rnd = random.Random(seed)
    ids: list[str] = []
    out: list[str] = []
    for line in lines:
        if line.startswith("DOC "):
            ids = []
        ids.extend(re.findall(r'<EM ID="([^"]+)"', line))
        if " ---> " not in line or "COREL=" not in line.split(" ---> ", 1)[0]:
            out.append(line)
            continue
        gold, rest = line.split(" ---> ", 1)
        head = re.match(r"<EM ([^>]*)>", gold)
        if head is None:
            out.append(line)
            continue
        attributes = _ATTRIBUTE.findall(head.group(1))
        values = dict(attributes)
        lists = {k: values[k].split(" ") for k in LISTS if k in values}
        size = len(lists.get("COREL", []))
        if any(len(v) != size for v in lists.values()):
            out.append(line)
            continue
        keep = [i for i in range(size) if kind != "drop" or rnd.random() >= rate]
        lists = {k: [v[i] for i in keep] for k, v in lists.items()}
        if kind == "retype":
            lists["TIPOREL"] = [
                rnd.choice(NEW_TYPES) if rnd.random() < rate else t for t in lists["TIPOREL"]
            ]
        if kind == "retarget" and ids:
            lists["COREL"] = [rnd.choice(ids) if rnd.random() < rate else c for c in lists["COREL"]]
        written = [
            (k, " ".join(lists[k]) if k in lists else v)
            for k, v in attributes
            if k not in lists or lists[k]
        ]
        tag = "<EM " + " ".join(f'{k}="{v}"' for k, v in written) + ">"
        out.append(tag + gold[head.end() :] + " ---> " + rest)
    return out


def java_chain(oracle: Path, folder: Path) -> None:
    def run(args: list[str], out: str) -> None:
        with open(folder / out, "wb") as handle:
            done = subprocess.run(
                [str(oracle), *args],
                cwd=folder,
                stdout=handle,
                stderr=subprocess.PIPE,
                check=True,
            )
        # The programs fail inside a thread and still exit 0, their output cut short.
        said = done.stderr.decode("iso-8859-1")
        if "Exception" in said or "mal formada" in said:
            first = next(line for line in said.splitlines() if line.strip())
            raise SystemExit(f"the official {args[0]} failed on {folder}: {first}")

    name = "x.alts"
    for suffix, program in (
        ("expandido", ["RelationExpanderM2", "-exptudo", "sim"]),
        ("selec", ["AlignmentSelector"]),
        ("normalizado", ["IDNormalizer"]),
        ("triplas", ["AlignmentsToTriples"]),
    ):
        run([program[0], "-alinhamento", name, *program[1:]], f"{name}.{suffix}")
        name = f"{name}.{suffix}"
    for scenario, extra in FILTERS.items():
        filtered = f"{name}.{scenario}.filtrado"
        run(["RelationsFilter", "-alinhamento", name, *extra], filtered)
        run(["RelationsEvaluatorM2", "-alinhamento", filtered], f"{filtered}.avaliado")
        run(
            ["GlobalRelationsEvaluatorM2", "-alinhamento", f"{filtered}.avaliado"],
            f"{filtered}.avaliado.resumo",
        )


def compared(path: Path) -> list[bytes]:
    lines = path.read_bytes().replace(b"]::[", b"]:[").split(b"\n")
    return [line for line in lines if not line.startswith(b"#")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True, help="hj: runs one official program")
    parser.add_argument("--alts", type=Path, default=DEFAULT_ALTS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0.3)
    args = parser.parse_args()
    data = args.alts.read_bytes()
    if args.alts.suffix == ".gz":
        data = gzip.decompress(data)
    lines = data.decode("iso-8859-1").split("\n")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for number, kind in enumerate(("none", "drop", "retype", "retarget")):
            edited = lines if kind == "none" else edit(lines, kind, args.rate, args.seed + number)
            java, ours = Path(tmp, kind, "java"), Path(tmp, kind, "ours")
            for folder in (java, ours):
                folder.mkdir(parents=True)
                (folder / "x.alts").write_text("\n".join(edited), encoding="iso-8859-1")
            # the official programs cut records at "::": an .alts of ours writes ":"
            java_alts = java / "x.alts"
            java_alts.write_bytes(java_alts.read_bytes().replace(b"]:[", b"]::["))
            java_chain(args.oracle.resolve(), java)
            run_chain(ours / "x.alts")
            names = sorted(p.name for p in java.iterdir() if p.name.startswith("x.alts."))
            equal = [n for n in names if compared(java / n) == compared(ours / n)]
            print(f"{kind:9s} {len(equal)}/{len(names)} files equal")
            for name in sorted(set(names) - set(equal)):
                print(f"  differs: {name}")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
