"""The official TEMPO pages of a campaign with ``veils:`` and the TEMPO track on.

Four documents of the TEMPO collection, the collection itself and a simulated
run, ``veils: official``: every mode × official TEMPO veil (``total``,
``cenario2``, ``cenario4``, ``cenario6``, ``tempo``, ``docs/spec/tempo.md``)
has its strict and relaxed page, named as ``Avaliacao.sh tempo`` names them,
whose figures are those of the ``.tempo.ida`` reports of that veil and mode;
an unchanged rerun runs nothing; a ``veils:`` without the TEMPO veils writes
no TEMPO page.  One page pair equals what the official ``GlobalSemanticReporter``
printed for the same ``.tempo.ida`` reports (``data/reference/official/tempo/``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harem_pipeline.pipeline.official import OfficialRun, write_semantic_pages
from harem_pipeline.pipeline.tempo import OFFICIAL_TEMPO_VEILS, tempo_page_prefix, tempo_page_veils
from harem_pipeline.reports.official import (
    F_MEASURE,
    MAX_CLASS_GC,
    MAX_CLASS_SYSTEM,
    MAX_PRECISION,
    MAX_RECALL,
    OVER,
    PRECISION,
    RECALL,
    TOTAL_IDENTIFIED,
    TOTAL_IN_GC,
    UNDER,
    read_semantic_entry,
)
from tests.helpers.campaign import STARTED, build
from tests.helpers.paths import DATA
from tests.helpers.tempo import MODES, tempo_campaign

ROW = re.compile(r"<tr><td>(?:<b>)?([^<]+)(?:</b>)?</td>(.*)</tr>")
STAMP = "<br>Pagina gerada automaticamente em: "
CELL = re.compile(r"<td>(?:<font color=green><b>)?([^<]*)")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = tempo_campaign(tmp_path_factory.mktemp("tempo_grid"), "veils: official\n")
    build(config)
    return config


def tables(page: str) -> list[dict[str, list[str]]]:
    """Each table of a page: run name → its cells (point decimals)."""
    found: list[dict[str, list[str]]] = []
    for line in page.splitlines():
        if line.startswith("<table"):
            found.append({})
        match = ROW.match(line)
        if match:
            cells = [cell.replace(",", ".") for cell in CELL.findall(match[2])]
            found[-1][match[1]] = cells
    return found


def report(out: Path, run: str, veil: str, mode: str, relaxed: bool) -> Path:
    emir = "emir.altrel" if relaxed else "emir"
    return out / run / f"{run}.alinhado.avalida.total.{veil}.alts.{emir}.{mode}.tempo.ida"


def test_the_tempo_veils_are_the_official_script_s() -> None:
    assert OFFICIAL_TEMPO_VEILS == ("total", "cenario2", "cenario4", "cenario6", "tempo")
    assert tempo_page_veils(["pessoa", "tempo", "total"]) == ("total", "tempo")


def test_every_mode_and_tempo_veil_has_its_two_pages(built: Path) -> None:
    folder = built.parent / "out" / "official"
    tempo_pages = sorted(p.name for p in folder.glob("resultados*TEMPO_*.html"))
    expected = sorted(
        f"resultados_{alt}TEMPO_{mode}_{veil}.html"
        for mode in MODES
        for veil in OFFICIAL_TEMPO_VEILS
        for alt in ("", "altrel_")
    )
    assert tempo_pages == expected  # 3 modes × 5 veils × 2 ALT = 30; no pessoa, no proprio
    assert len(tempo_pages) == 30


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("veil", OFFICIAL_TEMPO_VEILS)
def test_page_figures_are_those_of_its_tempo_reports(built: Path, mode: str, veil: str) -> None:
    out = built.parent / "out"
    for relaxed in (False, True):
        alt = "altrel_" if relaxed else ""
        page = (out / "official" / f"resultados_{alt}TEMPO_{mode}_{veil}.html").read_bytes()
        text = page.decode("latin-1")
        tail = ".altrel.tempo.ida" if relaxed else ".tempo.ida"
        assert f"[TEMPO_{mode}.{veil}.alinhado.avalida.veu.alts.emir{tail}]" in text
        classification, identification = tables(text)
        assert set(classification) == {"gold", "average"}
        for run in ("gold", "average"):
            source = report(out, run, veil, mode, relaxed)
            assert Path(f"{source}.manifest.json").is_file()  # a Luigi task with its manifest
            assert Path(f"{str(source)[: -len('.ida')]}.manifest.json").is_file()  # AvalTEMPO's
            entry = read_semantic_entry(run, source)
            columns = (MAX_PRECISION, MAX_RECALL, F_MEASURE, MAX_CLASS_GC, MAX_CLASS_SYSTEM)
            assert classification[run] == [entry.classification[k] for k in columns]
            columns = (PRECISION, RECALL, F_MEASURE, OVER, UNDER, TOTAL_IN_GC, TOTAL_IDENTIFIED)
            assert identification[run] == [entry.identification[k] for k in columns]
        # The collection against itself: every TEMPO attribute right, F = 1.
        assert classification["gold"][2] == "1.0"
        assert float(classification["average"][2]) < 1.0


def test_an_unchanged_rerun_runs_nothing(built: Path) -> None:
    STARTED.clear()
    build(built)
    assert STARTED == []


def test_veils_without_the_tempo_veils_write_no_tempo_page(tmp_path: Path) -> None:
    config = tempo_campaign(tmp_path, "veils: [pessoa]\ntempo: {modes: [1]}\n")
    build(config)
    folder = tmp_path / "out" / "official"
    assert (folder / "resultados_HAREM_Classico_pessoa.html").is_file()
    assert not list(folder.glob("resultados*TEMPO_*"))
    assert not list((tmp_path / "out" / "gold").glob("*.pessoa.*.tempo*"))


OFFICIAL_TEMPO = DATA / "reference" / "official" / "tempo"


def test_a_tempo_page_equals_the_official_reporter_s(tmp_path: Path) -> None:
    """``GlobalSemanticReporter -depurar`` on the same ``.tempo.ida`` (mode 1, veil tempo)."""
    runs = [
        OfficialRun(
            run,
            OFFICIAL_TEMPO / f"{run}.emir.tempo.ida",
            OFFICIAL_TEMPO / f"{run}.emir.altrel.tempo.ida",
        )
        for run in ("gold", "average")
    ]
    prefix = tempo_page_prefix(1)
    written = write_semantic_pages(tmp_path, {"tempo": runs}, prefix=prefix, tempo=True)
    assert [path.name for path in written] == [
        "resultados_TEMPO_estendido_completo_tempo.html",
        "resultados_altrel_TEMPO_estendido_completo_tempo.html",
    ]
    for path in written:
        ours = path.read_bytes().decode("latin-1").splitlines(keepends=True)
        page = "".join(line for line in ours if not line.startswith(STAMP))
        assert page == (OFFICIAL_TEMPO / path.name).read_bytes().decode("latin-1")
