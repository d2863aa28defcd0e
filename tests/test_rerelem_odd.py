"""Valid but odd ReRelEM input: unknown relation types and CORELs to missing IDs.

The official programs keep both (the shipped golden collection has 15 types
``harem.conf`` does not list, such as ``pratica_se``, and CORELs to absent
IDs): ``RerelemChangeNotationM2`` gives a missing target the category
``null``, the expander drops its relation (``COREL com ID inexistente!`` /
``Problema:`` on stderr), an unknown type is a non-basic one (no inverse,
scored as ``outra``, through every filter).  Reference
(``data/reference/rerelem/odd``, see ``data/README.md``): a hand-made
two-document collection and run in t2 notation with types ``amigo_de``,
``xpto_de``, ``vizinho_de`` (plain and ``**`` items), CORELs to ``d1-99``,
``d1-77``, ``d2-5`` (and the run's ``r99``, ``r77``, ``s5``), an entity of
two categories; the official conversions, the official classic chain's
``.alts`` (veil ``*``, style muc) and the official ReRelEM chain on it.
Ours equals each file; truly malformed input (``tests/test_rerelem.py``)
is one line and exit 2.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.measures.resampling import NO_BOOTSTRAP
from harem_pipeline.pipeline import rerelem as steps
from tests.helpers.paths import DATA

ODD = DATA / "reference" / "rerelem" / "odd"
CHAIN = (
    ".expandido",
    ".expandido.selec",
    ".expandido.selec.normalizado",
    ".expandido.selec.normalizado.triplas",
    ".expandido.selec.normalizado.triplas.todas.filtrado",
    ".expandido.selec.normalizado.triplas.todas.filtrado.avaliado",
    ".expandido.selec.normalizado.triplas.todas.filtrado.avaliado.resumo",
)


def _compared(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().split(b"\n") if not line.startswith(b"#")]


@pytest.mark.parametrize("name", ["cd", "run"])
def test_conversion_keeps_unknown_types_and_missing_targets(tmp_path: Path, name: str) -> None:
    source = tmp_path / f"{name}.xml"
    shutil.copyfile(ODD / f"{name}.xml", source)
    assert main(["rerelem", "convert", str(source)]) == 0
    converted = (tmp_path / f"{name}_t1.xml").read_bytes()
    assert converted == (ODD / f"{name}_t1.xml").read_bytes()
    if name == "cd":
        assert b'TIPOREL="inclui amigo_de ident"' in converted
        assert b'FACS_ALVO="LOCAL PESSOA null"' in converted  # d1-99 is no entity


def test_the_chain_equals_the_official_on_odd_relations(tmp_path: Path) -> None:
    alts = tmp_path / "j.alts"
    shutil.copyfile(ODD / "j.alts", alts)
    result = steps.run_chain(alts, ["todas"], resampling=NO_BOOTSTRAP)
    for suffix in CHAIN:
        ours = Path(str(alts) + suffix)
        assert _compared(ours) == _compared(ODD / f"j.alts{suffix}"), suffix
    expected = (ODD / "j.alts.expandido.stderr").read_text("iso-8859-1").splitlines()
    assert result.warnings == expected
    triples = Path(str(alts) + CHAIN[3]).read_text("iso-8859-1")
    assert "d1-1 LOCAL amigo_de d1-3 PESSOA" in triples  # unknown: kept, no inverse
    assert "d1-99" not in triples and "d1-77" not in triples  # missing targets dropped
    summary = Path(str(alts) + CHAIN[-1]).read_text("iso-8859-1")
    assert "Medida F: 0.9523809523809523" in summary


def test_the_expander_reports_what_the_official_prints(tmp_path: Path, capsys) -> None:
    alts = tmp_path / "j.alts"
    shutil.copyfile(ODD / "j.alts", alts)
    assert main(["rerelem", "expand", str(alts), "--warnings"]) == 0
    err = capsys.readouterr().err
    assert err == (ODD / "j.alts.expandido.stderr").read_text("iso-8859-1")
