"""A hand-made campaign with NaN rows equals the official pages (docs/spec/official-grid.md).

Two runs made from the campaign's collection join the simulated ``strong`` and
``weak``: ``vazio`` (the text without any entity: no Precisão, no Medida F)
and ``errado`` (entities only on words outside every golden entity: Precisão
0, no Medida F).  The references are what the official ``GlobalSemanticReporter
-depurar`` and ``GlobalIdentificationReporter -depurar`` printed for the
campaign's reports (data/README.md).  A second campaign of ``vazio`` and
``errado`` alone shows the best cells counting the run the page hides.
"""

from __future__ import annotations

import gzip
import re
from datetime import datetime
from pathlib import Path

from harem_pipeline.reports.official import (
    read_identification_entry,
    render_identification_page,
)
from tests.helpers.campaign import build, make_campaign
from tests.helpers.paths import DATA

REFERENCE = DATA / "reference" / "official" / "nan-campaign"
IDA2ID = ".alinhado.avalida.total.muc.ida2id"
CATEGORIES = (
    "PESSOA",
    "ORGANIZACAO",
    "LOCAL",
    "TEMPO",
    "VALOR",
    "ABSTRACCAO",
    "ACONTECIMENTO",
    "COISA",
    "OBRA",
    "OUTRO",
    "VARIADO",
    "OMITIDO",
)
ENTITY = rf"(?:[A-Z|]*\|[A-Z|]*|{'|'.join(CATEGORIES)})"
TOKEN = re.compile(rf"(<{ENTITY}(?: [^>]*)?>)|(</{ENTITY}>)|(\b[^\W\d_]{{5,}}\b)|(<[^>]*>)")


def nan_runs(collection: str) -> dict[str, str]:
    """``vazio`` and ``errado`` made from the collection's text.

    ALT blocks keep their first alternative; every entity tag is dropped;
    ``errado`` tags every twelfth word of five letters or more that lies
    outside every golden entity as a PESSOA, so none of its entities is right.
    """
    text = re.sub(r"<ALT>(.*?)</ALT>", lambda m: m[1].split("|")[0], collection, flags=re.S)
    empty: list[str] = []
    wrong: list[str] = []
    depth = outside = position = 0
    for match in TOKEN.finditer(text):
        between = text[position : match.start()]
        empty.append(between)
        wrong.append(between)
        position = match.end()
        opening, closing, word, other = match.groups()
        if opening:
            depth += 1
        elif closing:
            depth -= 1
        elif word:
            empty.append(word)
            outside += depth == 0
            tagged = depth == 0 and outside % 12 == 0
            wrong.append(f'<PESSOA TIPO="INDIVIDUAL">{word}</PESSOA>' if tagged else word)
        else:
            empty.append(other)
            wrong.append(other)
    empty.append(text[position:])
    wrong.append(text[position:])
    return {"vazio": "".join(empty), "errado": "".join(wrong)}


def nan_campaign(folder: Path, runs: str, veils: str) -> Path:
    config = make_campaign(folder, extra=f"style: muc\nveils: {veils}\n")
    for name, text in nan_runs((folder / "cd.txt").read_bytes().decode("latin-1")).items():
        (folder / "runs" / f"{name}.txt").write_bytes(text.encode("latin-1"))
    config.write_text(
        config.read_text(encoding="utf-8").replace("runs: [runs/*.txt]", f"runs: {runs}"),
        encoding="utf-8",
    )
    return config


def without_stamp(page: bytes) -> str:
    text = page.decode("latin-1")
    return "".join(line for line in text.splitlines(keepends=True) if "Pagina gerada" not in line)


def semantic_page(official: Path, veil: str, alt: str) -> str:
    prefix, filtro = ("", ".emir.ida") if alt == "strict" else ("_altrel", ".emir.altrel.ida")
    page = official / f"resultados{prefix}_HAREM_Classico_{veil}.html"
    title = f"HAREM_Classico.{veil}.alinhado.avalida.veu.alts{filtro}"
    return without_stamp(page.read_bytes()).replace(title, filtro)


def rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("<tr><td>")]


def assert_equal_but_tie_order(ours: str, theirs: str) -> None:
    """Equal, but for the order of rows of equal F, which the Java shuffles at random."""
    assert [line for line in ours.splitlines() if not line.startswith("<tr><td>")] == [
        line for line in theirs.splitlines() if not line.startswith("<tr><td>")
    ]
    assert sorted(rows(ours)) == sorted(rows(theirs))


def test_the_runs_are_what_they_claim(tmp_path: Path) -> None:
    """``vazio`` has no entity; ``errado`` has entities, none on a golden one."""
    make_campaign(tmp_path)
    made = nan_runs((tmp_path / "cd.txt").read_bytes().decode("latin-1"))
    assert not re.search(rf"<{ENTITY}[ >]", made["vazio"])
    assert len(re.findall(r"<PESSOA ", made["errado"])) == 51
    plain = re.sub(r"<[^>]+>", "", made["errado"])
    assert plain == re.sub(r"<[^>]+>", "", made["vazio"])


def test_a_campaign_with_nan_rows_equals_the_official_pages(tmp_path: Path) -> None:
    config = nan_campaign(tmp_path, "[runs/*.txt]", "[total, pessoa]")
    build(config)
    official = tmp_path / "out" / "official"
    for veil in ("total", "pessoa"):
        for alt in ("strict", "relaxed"):
            reference = gzip.decompress((REFERENCE / f"{veil}_{alt}.html.gz").read_bytes())
            ours = semantic_page(official, veil, alt)
            assert ours == reference.decode("latin-1"), (veil, alt)
            # vazio (Precisão NaN) has no row; errado's NaN F is shown as 0,0.
            shown = [re.match(r"<tr><td><b>(\w+)", row)[1] for row in rows(ours)]
            assert shown == ["strong", "weak", "errado"] * 2
    # The identification page reads Ida2ID's "-" as the Java's NaN: every run has a row
    # (-depurar), vazio's Precisão and Sobre-geração print NaN, both NaN F zerofied.
    page = without_stamp((official / "resultados_identificacao_total.html").read_bytes())
    assert_equal_but_tie_order(page, (REFERENCE / "identification.html").read_text("latin-1"))
    assert [re.match(r"<tr><td><b>(\w+)", row)[1] for row in rows(page)] == [
        "strong",
        "weak",
        "vazio",
        "errado",
    ]
    assert "<td>NaN</td><td>0.0</td><td>0.0</td><td>1.0</td><td>NaN</td>" in rows(page)[2]
    report = tmp_path / "out" / "vazio" / f"vazio{IDA2ID}"
    assert "Precisão: -\n" in report.read_text("latin-1")
    assert read_identification_entry("vazio", report).values["Precisão"] == "NaN"


def test_best_cells_count_the_runs_a_page_hides(tmp_path: Path) -> None:
    """vazio's NaN Precisão sorts as the smallest positive double, above errado's 0.0:
    it is the best Precisão, so on the semantic pages, where vazio has no row, no
    Precisão cell is marked; the identification page (-depurar) marks vazio's NaN."""
    config = nan_campaign(tmp_path, "[runs/vazio.txt, runs/errado.txt]", "[total]")
    build(config)
    official = tmp_path / "out" / "official"
    pair = REFERENCE / "pair"
    for alt in ("strict", "relaxed"):
        ours = semantic_page(official, "total", alt)
        assert ours == (pair / f"total_{alt}.html").read_text("latin-1"), alt
        identification_row = rows(ours)[1]
        assert identification_row.startswith("<tr><td><b>errado</b></td><td>0,0</td>")
    page = without_stamp((official / "resultados_identificacao_total.html").read_bytes())
    assert_equal_but_tie_order(page, (pair / "identification.html").read_text("latin-1"))
    assert "<td><b>vazio</b></td><td><font color=green><b>NaN</b></font></td>" in page
    # Anonymised (the Java without -depurar): vazio has no row, but still the best Precisão.
    entries = [
        read_identification_entry(run, tmp_path / "out" / run / f"{run}{IDA2ID}")
        for run in ("vazio", "errado")
    ]
    codes = {"errado": "CODE", "vazio": "unused"}
    anonymous = render_identification_page(entries, [".ida2id"], datetime(2026, 1, 1), codes)
    reference = (pair / "identification_anonymous.html").read_text("latin-1")
    assert without_stamp(anonymous.encode("latin-1")) == reference
