"""The semantic commands through ``harem_pipeline.cli.main``: outputs, and bad input.

A user's mistake is one line on stderr naming the file and line (or the
option), exit status 2, and no output file left behind.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from tests.helpers.semantic import REFERENCE

HEADER = "#LOCAL(HUMANO{PAIS,RUA}):PESSOA(CARGO;INDIVIDUAL)\n"
GOOD = (
    '<EM ID="1" CATEG="PESSOA" TIPO="CARGO">rei</EM> ---> '
    '[<EM ID="a" CATEG="PESSOA" TIPO="CARGO">rei</EM>]:[Correcto]\n'
)


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("latin-1"))
    return path


def test_chain_from_a_reference_veu(tmp_path: Path) -> None:
    veu = tmp_path / "x.veu"
    veu.write_bytes(gzip.decompress((REFERENCE / "exemplo0" / "total_muc.veu.gz").read_bytes()))
    assert main(["-q", "alts", str(veu)]) == 0
    alts = tmp_path / "x.veu.alts"
    assert main(["-q", "espurios", str(alts)]) == 0
    assert main(["-q", "emir", str(alts)]) == 0
    assert main(["-q", "emir", str(alts), "--relative"]) == 0
    emir = tmp_path / "x.veu.alts.emir"
    assert main(["-q", "altsem", str(emir)]) == 0
    for name in ("x.veu.alts.emir", "x.veu.alts.emir.altrel", "x.veu.alts.emir_relativo"):
        assert main(["-q", "ida", str(tmp_path / name), "--bootstrap", "20"]) == 0
    report = json.loads((tmp_path / "x.veu.alts.emir_relativo.ida.json").read_text("utf-8"))
    assert (report["scenario"], report["alt"]) == ("relative", "strict")
    # exemplo0 total_muc.veu.alts.emir_relativo.ida: Medida F 0.8944519621109607
    assert report["classificacao"]["medida_f"] == 0.8944519621109607
    assert set(report["ci95"]) == {"identificacao", "classificacao"}
    # teste1, relative: ALT records 0.25 + 2·0.25 + 0.25 + 0.25, then cd2 and cd4 (cd3 dropped)
    assert report["documents"]["teste1"]["total_cd"] == 3.25
    relaxed = json.loads((tmp_path / "x.veu.alts.emir.altrel.ida.json").read_text("utf-8"))
    assert relaxed["alt"] == "relaxed"
    assert "PESSOA" in relaxed["por_categoria"]
    text = (tmp_path / "x.veu.alts.emir.ida").read_bytes().decode("latin-1")
    assert "Avaliação por categoria" in text and "\nAssinatura: harem:" in text


def _fails(capsys, argv: list[str], *needles: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize("command", ["alts", "espurios", "emir", "altsem", "ida"])
def test_no_veus_header(tmp_path: Path, capsys, command: str) -> None:
    bad = write(tmp_path / "bad.alts", "DOC d\n" + GOOD + "EOD\n")
    out = tmp_path / "out"
    _fails(capsys, ["-q", command, str(bad), "-o", str(out)], "bad.alts", "line 1", "header")
    assert list(tmp_path.iterdir()) == [bad]


def test_evaluation_not_from_veus(tmp_path: Path, capsys) -> None:
    emir_item = (
        "{Categoria(Correcto:[] Espurio:[] Em_Falta:[]) Tipo(Correcto:[] Espurio:[] "
        "Em_Falta:[]) Subtipo(Correcto:[] Espurio:[] Em_Falta:[]) MaxCSC_CD(0.0) "
        "MaxCSC_S(0.0) CSC(0.0) Peso(0.0)}"
    )
    record = f'<EM CATEG="PESSOA">a</EM> ---> [<EM CATEG="PESSOA">a</EM>]:[{emir_item}]\n'
    bad = write(tmp_path / "e.alts", HEADER + "DOC d\n" + GOOD + record + "EOD\n")
    _fails(capsys, ["-q", "emir", str(bad)], "e.alts", "line 4", "identification")
    assert list(tmp_path.iterdir()) == [bad]


def test_ida_on_a_file_not_from_emir(tmp_path: Path, capsys) -> None:
    bad = write(tmp_path / "v.emir", HEADER + "DOC d\n" + GOOD + "EOD\n")
    _fails(capsys, ["-q", "ida", str(bad)], "v.emir", "line 3", "Emir")
    assert list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize("weights", ["1;x;0.5;0.25", "1;1;0.5", "", "1;1;0.5;0.25;2"])
def test_malformed_weights(tmp_path: Path, capsys, weights: str) -> None:
    good = write(tmp_path / "g.alts", HEADER + "DOC d\n" + GOOD + "EOD\n")
    _fails(capsys, ["-q", "emir", str(good), "--weights", weights], "--weights", "id;α;β;γ")
    assert list(tmp_path.iterdir()) == [good]


def test_unknown_grid_category(tmp_path: Path, capsys) -> None:
    bad = write(tmp_path / "u.alts", "#PESSOA:FANTASMA\nDOC d\n" + GOOD + "EOD\n")
    _fails(capsys, ["-q", "emir", str(bad)], "u.alts", "line 1", "FANTASMA")
    assert list(tmp_path.iterdir()) == [bad]


def test_weights_change_the_scores(tmp_path: Path) -> None:
    good = write(tmp_path / "g.alts", HEADER + "DOC d\n" + GOOD + "EOD\n")
    assert main(["-q", "emir", str(good), "--weights", "2;1;0.5;0.25"]) == 0
    text = (tmp_path / "g.alts.emir").read_text("latin-1")
    # veil of 2 categories, PESSOA with 2 types: 2 + 1(1 − 1/2) + 0.5(1 − 1/2) = 2.75
    assert "CSC(2.75)" in text


def test_grid_option(tmp_path: Path) -> None:
    grid = tmp_path / "grid.conf"
    shutil.copy(
        Path(__file__).resolve().parent.parent / "harem_pipeline/resources/harem.conf", grid
    )
    good = write(tmp_path / "g.alts", HEADER + "DOC d\n" + GOOD + "EOD\n")
    assert main(["-q", "emir", str(good), "--grid", str(grid), "-o", str(tmp_path / "o")]) == 0
