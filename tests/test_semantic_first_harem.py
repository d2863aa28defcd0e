"""First HAREM (2005) collections: the 2005 grid and the 2005 views of the Ida report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harem_pipeline.formats.alinhado import parse_lines
from harem_pipeline.formats.veils import GRID_2005_PATH, format_veil, parse_veil, read_grid
from harem_pipeline.measures.semantic import first_harem_figures
from harem_pipeline.stages.emir import EmirParams, evaluate_lines
from harem_pipeline.stages.ida import tally_semantic
from tests.helpers.semantic import ROOT, written

COLLECTION = ROOT / "data" / "first-harem" / "ColeccaoDouradaHAREM.txt"
STRUCTURE = {"DOC", "DOCID", "GENERO", "ORIGEM", "TEXTO", "ALT", "OMITIDO"}


def test_every_collection_category_and_type_is_in_the_2005_grid() -> None:
    grid = read_grid(GRID_2005_PATH)
    text = COLLECTION.read_text(encoding="latin-1")
    seen = set()
    for match in re.finditer(r'<([A-Z|]+)((?:\s+[A-Z]+="[^"]*")*)\s*>', text):
        if match.group(1) in STRUCTURE:
            continue
        cats = match.group(1).split("|")
        tipo = re.search(r'TIPO="([^"]*)"', match.group(2))
        types = tipo.group(1).split("|") if tipo else []
        for i, cat in enumerate(cats):
            seen.add((cat, types[i] if i < len(types) else None))
    assert len(seen) > 40
    for cat, typ in sorted(seen, key=str):
        assert cat in grid.categories, cat
        if typ is not None:
            assert typ in grid.types(cat), (cat, typ)


HEADER = "#LOCAL(ADMINISTRATIVO;GEOGRAFICO):PESSOA(CARGO;INDIVIDUAL)"
LISBOA = '<LOCAL TIPO="ADMINISTRATIVO">Lisboa</LOCAL>'
ANA, ANA_CARGO = '<PESSOA TIPO="INDIVIDUAL">Ana</PESSOA>', '<PESSOA TIPO="CARGO">Ana</PESSOA>'
TEJO, TEJO_PESSOA = (
    '<LOCAL TIPO="GEOGRAFICO">Tejo</LOCAL>',
    '<PESSOA TIPO="INDIVIDUAL">Tejo</PESSOA>',
)
RECORDS = [
    # right category and type: 2005 score 2 − 1/2 = 1.5 (each category has 2 types in the veil)
    f"{LISBOA} ---> [{LISBOA}]:[Correcto]",
    # right category, wrong type: 1
    f"{ANA} ---> [{ANA_CARGO}]:[Correcto]",
    # wrong category: 0
    f"{TEJO} ---> [{TEJO_PESSOA}]:[Correcto]",
    '<PESSOA TIPO="CARGO">rei</PESSOA> ---> [null]:[Em_Falta]',
    '<ESPURIO>X</ESPURIO> ---> [<LOCAL TIPO="ADMINISTRATIVO">X</LOCAL>]:[Espurio]',
]


def _emir(header: str, records: list[str]) -> list:
    lines = list(parse_lines("\n".join([header, "DOC d", *records, "EOD", ""])))
    return list(parse_lines(written(evaluate_lines(lines, EmirParams(), "t.alts"), ":")))


def test_2005_views_hand_computed() -> None:
    tally = tally_semantic(_emir(HEADER, RECORDS), "t.emir")
    assert tally.first_harem is not None  # the format detected: the 2005 views counted
    views = first_harem_figures(tally.first_harem.as_mapping())
    # identified 4 (records 1, 2, 3, 5), CD 4 (records 1–4)
    # categories right: records 1 and 2 → P = R = 2/4
    assert views["categorias"]["precisao"] == views["categorias"]["abrangencia"] == 0.5
    # types among the 2 with the right category: record 1 only → 1/2
    assert views["tipos"]["precisao"] == 0.5
    # flat: 1 right over 4 identified and over 4 in the CD
    assert views["plana"]["precisao"] == views["plana"]["abrangencia"] == 0.25
    # combined: (1.5 + 1 + 0) over 4·1.5 on either side
    assert views["combinada"]["precisao"] == 2.5 / 6.0
    assert views["combinada"]["abrangencia"] == 2.5 / 6.0


def test_first_harem_csc_with_the_2005_veil() -> None:
    emir = _emir(HEADER, RECORDS[:1])
    text = "".join(str(getattr(item, "evaluation", "")) for item in emir)
    # 2 categories, LOCAL with 2 types: 1 + (1 − 1/2) + 0.5(1 − 1/2) = 1.75
    assert "CSC(1.75)" in text


def test_the_2008_whole_grid_header_means_the_2005_grid() -> None:
    # a First HAREM file through Véus with its default grid: header = the 2008 grid, '*'
    header = "#" + format_veil(parse_veil(None, read_grid()))
    emir = _emir(header, RECORDS[:1])
    text = "".join(str(getattr(item, "evaluation", "")) for item in emir)
    # the 2005 grid has 11 categories (with OUTRO), LOCAL 6 types (with OUTRO):
    expected = 1.0 + (1 - 1 / 11) * 1.0 + (1 - 1 / 6) * 0.5
    assert f"CSC({expected!r})" in text


def test_second_harem_grid_refuses_2005_categories(tmp_path: Path, capsys) -> None:
    from harem_pipeline.cli import main

    alts = tmp_path / "v.alts"
    alts.write_text("#VARIADO\nDOC d\n" + RECORDS[0] + "\nEOD\n", encoding="latin-1")
    assert main(["-q", "emir", str(alts)]) == 0  # First HAREM: the 2005 grid has VARIADO
    assert main(["-q", "emir", str(alts), "--grid", str(GRID_2005_PATH.parent / "harem.conf")]) == 2
    assert "VARIADO" in capsys.readouterr().err


@pytest.mark.parametrize("views", [True, False])
def test_views_only_for_first_harem_unless_asked(views: bool) -> None:
    tally = tally_semantic(_emir(HEADER, RECORDS), "t.emir", first_harem=views)
    assert (tally.first_harem is not None) == views
