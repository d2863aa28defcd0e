"""The official result pages equal what ``GlobalSemanticReporter`` printed.

References (``data/reference/official/``) are the Java's pages for the same
``.ida`` files, their timestamp line dropped and the ``participacoes/``
folder taken off the row names (see ``data/README.md``).
"""

from __future__ import annotations

import gzip
import re
from datetime import datetime
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.reports.official import (
    CODE_NAMES,
    anonymise,
    format_key,
    java_timestamp,
    parse_identification_entry,
    parse_participants,
    parse_semantic_entry,
    participant_names,
    read_identification_entry,
    read_participants,
    read_semantic_entry,
    render_identification_page,
    render_semantic_page,
)
from tests.helpers.paths import DATA

OFFICIAL = DATA / "reference" / "official"
REFERENCE = DATA / "reference"
MOMENT = datetime(2026, 12, 3, 18, 11, 24)
STAMP = "<br>Pagina gerada automaticamente em: "


def sources(column: int) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in (OFFICIAL / "sources.tsv").read_text().splitlines()]
    return [(row[0], row[column]) for row in rows if row[column] != "-"]


def expected(name: str) -> str:
    return (OFFICIAL / name).read_bytes().decode("latin-1")


def without_stamp(page: str) -> str:
    return "".join(line for line in page.splitlines(keepends=True) if not line.startswith(STAMP))


def real_entries(column: int) -> list:
    return [read_semantic_entry(name, REFERENCE / path) for name, path in sources(column)]


@pytest.mark.parametrize(
    ("column", "suffix", "reference"),
    [(1, ".emir.ida", "semantic_real.html"), (2, ".emir.altrel.ida", "semantic_real_altrel.html")],
)
def test_real_runs_equal_the_official_page(column: int, suffix: str, reference: str) -> None:
    page = render_semantic_page(real_entries(column), [suffix], MOMENT)
    assert without_stamp(page) == expected(reference)
    assert f"{STAMP}03 Dec 2026 18:11:24\n" in page


def test_ties_nan_rows_and_best_cells_equal_the_official_page() -> None:
    entries = [
        read_semantic_entry(p.name.split(".")[0], p)
        for p in sorted((OFFICIAL / "handmade").iterdir())
    ]
    page = render_semantic_page(entries, [".emir.ida"], MOMENT)
    assert without_stamp(page) == expected("semantic_handmade.html")
    # Hand-checked: F ties in reverse name order (Java order: 'B' < 'a'); the
    # run with NaN Precisão has no row but holds the best (NaN) Sobre-geração,
    # so no printed cell of that column is green; NaN F is printed 0,0.
    rows = [line for line in page.splitlines() if line.startswith("<tr><td>")]
    assert [re.match(r"<tr><td><b>(\w+)", row)[1] for row in rows[:6]] == [
        "eta",
        "zeta",
        "alfa",
        "Beta",
        "gama",
        "delta",
    ]
    identification = rows[6:]
    assert not any("vazio" in row for row in rows)
    assert all(
        row.split("<td>")[5] in ("0,2</td>", "0,4</td>", "0,5</td>", "1,0</td>")
        for row in identification
    )
    assert "<td>0,0</td><td>0,0</td><td>0,0</td>" in rows[5]


def test_anonymised_page_equals_the_official_layout() -> None:
    """The Java without ``-depurar``: its key first, code names in the rows (no F ties here)."""
    reference = expected("semantic_real_anonymous.html")
    key_line, body = reference.split("\n", 1)
    codes = dict(pair.split("=") for pair in key_line.strip("{}").split(", "))
    runs = [entry for entry in real_entries(1) if entry.name in codes]
    assert len(runs) == 10
    page = render_semantic_page(runs, [".emir.ida"], MOMENT, code_names=codes)
    assert without_stamp(page) == body
    assert format_key(codes) == key_line + "\n"


def test_anonymisation_is_deterministic_under_a_seed() -> None:
    names = [f"run{i}" for i in range(10)]
    first = anonymise(names, seed=7)
    assert first == anonymise(list(reversed(names)), seed=7)
    assert set(first) == set(names) and len(set(first.values())) == 10
    assert set(first.values()) <= set(CODE_NAMES)
    assert any(anonymise(names, seed=s) != first for s in range(1, 5))
    assert len(CODE_NAMES) == len(set(CODE_NAMES)) == 32
    with pytest.raises(InputError, match="at most 32 runs"):
        anonymise([f"r{i}" for i in range(33)], seed=1)


def test_participant_table_names_runs_by_system() -> None:
    table = read_participants(DATA / "lampada2" / "lista_participantes_veus.tsv")
    shown = participant_names(
        ["partic01_1_corr", "participacoes/partic03/partic03_1_corr", "mine"], table
    )
    assert shown == {
        "partic01_1_corr": "Cage2_1_corr",
        "participacoes/partic03/partic03_1_corr": "DobrEM_1_corr",
        "mine": "mine",
    }


def test_java_month_names() -> None:
    assert java_timestamp(datetime(2008, 10, 5, 9, 3, 1)) == "05 Out 2008 09:03:01"
    assert java_timestamp(datetime(2008, 1, 5, 9, 3, 1)) == "05 Jan 2008 09:03:01"
    assert java_timestamp(datetime(2008, 5, 5, 9, 3, 1)) == "05 Mai 2008 09:03:01"


def test_a_report_missing_a_value_is_an_error_naming_it() -> None:
    text = (OFFICIAL / "handmade" / "eta.emir.ida").read_bytes().decode("latin-1")
    with pytest.raises(InputError, match="x.ida: expected a 'Sub-geração: <number>' line"):
        parse_semantic_entry("x", text.replace("Sub-geração: 0.4\n", ""), "x.ida")
    with pytest.raises(InputError, match="x.ida: expected a number after 'Medida F: '"):
        parse_semantic_entry(
            "x", text.replace("Medida F: 0.6857142857142857", "Medida F: abc", 1), "x.ida"
        )


def test_duplicate_run_names_are_an_error() -> None:
    entry = read_semantic_entry("eta", OFFICIAL / "handmade" / "eta.emir.ida")
    with pytest.raises(InputError, match="distinct run names"):
        render_semantic_page([entry, entry], [".emir.ida"], MOMENT)


def test_a_short_participant_line_is_an_error_naming_its_line() -> None:
    with pytest.raises(
        InputError, match=r"t.tsv, line 2: expected at least 4 tab-separated fields"
    ):
        parse_participants("#Path\tVeu\tD\tSistema\np/partic01_1\tPESSOA\n", "t.tsv")


# ---------------------------------------------------------------------------
# GlobalIdentificationReporter

GLOBALID = {
    "exemplo0_total_muc": "exemplo0/total_muc",
    "copia_a": "exemplo0/total_muc",
    "copia_b": "exemplo0/total_muc",
    "gabriel_run": "gabriel/run",
    "exemplo1_total_harem": "exemplo1/total_harem",
    "exemplo1_total_muc": "exemplo1/total_muc",
}


def identification_entries() -> list:
    entries = [
        read_identification_entry(name, REFERENCE / f"{path}.alinhado.avalida.globalid.gz")
        for name, path in GLOBALID.items()
    ]
    vazio = OFFICIAL / "handmade_globalid" / "vazio.alinhado.avalida.globalid"
    return [*entries, read_identification_entry("vazio", vazio)]


def f_of(row: str) -> float:
    return float(re.sub("<[^>]+>", "", row.split("<td>")[4]))


def test_identification_page_equals_the_official_page() -> None:
    """Equal but for the order of F ties, which the Java shuffles at random."""
    page = without_stamp(
        render_identification_page(identification_entries(), [".globalid"], MOMENT)
    )
    reference = expected("identification.html")
    ours = page.splitlines()
    theirs = reference.splitlines()
    assert [line for line in ours if not line.startswith("<tr><td>")] == [
        line for line in theirs if not line.startswith("<tr><td>")
    ]
    rows = [line for line in ours if line.startswith("<tr><td>")]
    assert sorted(rows) == sorted(line for line in theirs if line.startswith("<tr><td>"))
    # Our tie order: F descending, ties in reverse name order; the NaN-Precisão
    # run printed (-depurar) last, with its F zerofied.
    names = [re.match(r"<tr><td><b>(\w+)", row)[1] for row in rows]
    assert names == [
        "exemplo1_total_muc",
        "exemplo1_total_harem",
        "exemplo0_total_muc",
        "copia_b",
        "copia_a",
        "gabriel_run",
        "vazio",
    ]
    assert [f_of(row) for row in rows] == sorted((f_of(row) for row in rows), reverse=True)
    assert "<td>NaN</td><td>0.0</td><td>0.0</td><td>1.0</td><td>NaN</td>" in rows[-1]
    # P × 100 as a Java double, points kept.
    assert "<td><font color=green><b>75.13447478720138</b></font></td>" in rows[5]


def test_anonymised_identification_page_drops_runs_without_precision() -> None:
    entries = identification_entries()
    codes = anonymise([entry.name for entry in entries], seed=3)
    page = render_identification_page(entries, [".globalid"], MOMENT, code_names=codes)
    rows = [line for line in page.splitlines() if line.startswith("<tr><td>")]
    assert len(rows) == 6 and codes["vazio"] not in page
    assert all(name not in page for name in GLOBALID)
    assert "<td>Total na CD</td>" not in page


def test_a_globalid_line_without_a_label_is_an_error() -> None:
    with pytest.raises(InputError, match=r"g.globalid, line 2: expected a 'Label: value' line"):
        parse_identification_entry("g", "Total na CD: 3\nnonsense\n", "g.globalid")


# ---------------------------------------------------------------------------
# harem report OUT --official


def fake_campaign(folder, veils: dict[str, list[str]]) -> None:
    """A campaign output folder holding only the Ida reports the pages read."""
    paths = dict(sources(1))
    relaxed = dict(sources(2))
    for veil, runs in veils.items():
        part = "" if veil == "" else f".{veil}"
        for run in runs:
            base = folder / run / f"{run}.alinhado.avalida.total{part}"
            base.parent.mkdir(parents=True, exist_ok=True)
            gzipped = (REFERENCE / paths[run]).read_bytes()
            Path(str(base) + ".alts.emir.ida").write_bytes(gzip.decompress(gzipped))
            if run in relaxed:
                text = gzip.decompress((REFERENCE / relaxed[run]).read_bytes())
                Path(str(base) + ".alts.emir.altrel.ida").write_bytes(text)


def test_report_official_writes_the_pages_of_every_veil(tmp_path, capsys) -> None:
    runs = [name for name, _ in sources(1)]
    # The campaign's own chain ("" and the style muc) is not one of its veils: left out.
    fake_campaign(tmp_path, {"pessoa": runs, "meu": runs[:3], "": runs, "muc": runs})
    assert main(["report", str(tmp_path), "--official"]) == 0
    official = tmp_path / "official"
    assert sorted(p.name for p in official.iterdir()) == [
        "resultados_HAREM_Classico_meu.html",
        "resultados_HAREM_Classico_pessoa.html",
        "resultados_altrel_HAREM_Classico_meu.html",
        "resultados_altrel_HAREM_Classico_pessoa.html",
    ]
    page = (official / "resultados_HAREM_Classico_pessoa.html").read_bytes().decode("latin-1")
    title = "[HAREM_Classico.pessoa.alinhado.avalida.veu.alts.emir.ida]"
    reference = expected("semantic_real.html").replace("[.emir.ida]", title)
    assert without_stamp(page) == reference
    relaxed = (official / "resultados_altrel_HAREM_Classico_pessoa.html").read_bytes()
    title = "[HAREM_Classico.pessoa.alinhado.avalida.veu.alts.emir.altrel.ida]"
    reference = expected("semantic_real_altrel.html").replace("[.emir.altrel.ida]", title)
    assert without_stamp(relaxed.decode("latin-1")) == reference
    assert capsys.readouterr().out.count("\n") == 4


def test_report_official_anonymised_is_deterministic_with_its_key(tmp_path) -> None:
    runs = [name for name, _ in sources(1)][:4]
    fake_campaign(tmp_path, {"": runs})
    assert main(["report", str(tmp_path), "--official", "--anonymise", "--seed", "5"]) == 0
    official = tmp_path / "official"
    first = (official / "resultados_HAREM_Classico_total.html").read_bytes()
    key = (official / "chave_anonimizacao.txt").read_text(encoding="latin-1")
    assert key == format_key(anonymise(runs, seed=5))
    assert not any(run.encode() in first for run in runs)
    codes = anonymise(runs, seed=5)
    assert all(f"<td><b>{codes[run]}</b></td>".encode() in first for run in runs)
    assert main(["report", str(tmp_path), "--official", "--anonymise", "--seed", "5"]) == 0
    again = (official / "resultados_HAREM_Classico_total.html").read_bytes()
    assert without_stamp(again.decode("latin-1")) == without_stamp(first.decode("latin-1"))


def test_report_official_writes_the_identification_page_of_the_ida2id(tmp_path) -> None:
    fake_campaign(tmp_path, {"": ["gabriel_total_muc"]})
    for run, path in (("gabriel_total_muc", "gabriel/run"), ("b", "exemplo0/total_muc")):
        folder = tmp_path / run
        folder.mkdir(exist_ok=True)
        source = REFERENCE / f"{path}.alinhado.avalida.globalid.gz"
        (folder / f"{run}.alinhado.avalida.total.muc.ida2id").write_bytes(
            gzip.decompress(source.read_bytes())
        )
    (tmp_path / "b" / "b.alinhado.avalida.pt.ida2id").write_text("not read\n")
    assert main(["report", str(tmp_path), "--official"]) == 0
    page = (tmp_path / "official" / "resultados_identificacao_total.html").read_bytes()
    assert re.findall(rb"<tr><td><b>(\w+)</b>", page) == [b"b", b"gabriel_total_muc"]
    assert b"<title>Resultados --- Segundo HAREM --- [.ida2id]</title>" in page


def test_report_official_names_runs_by_participant_table(tmp_path) -> None:
    fake_campaign(tmp_path, {"": ["gabriel_total_muc", "exemplo0_total_muc"]})
    info = tmp_path / "lista.tsv"
    info.write_text("#Path\tVeu\tD\tSistema\np/gabriel_total_muc\t*\tx\tGabriel\n")
    assert main(["report", str(tmp_path), "--official", "--info", str(info)]) == 0
    page = (tmp_path / "official" / "resultados_HAREM_Classico_total.html").read_bytes()
    assert b"<td><b>Gabriel_total_muc</b></td>" in page
    assert b"<td><b>exemplo0_total_muc</b></td>" in page


def test_report_official_without_reports_is_one_error_line(tmp_path, capsys) -> None:
    assert main(["report", str(tmp_path), "--official"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harem report: error: ") and err.count("\n") == 1
    assert "*.alts.emir.ida reports" in err
    assert not (tmp_path / "official").exists()


def test_report_anonymise_without_official_is_an_error(tmp_path, capsys) -> None:
    assert main(["report", str(tmp_path), "--anonymise"]) == 2
    assert (
        capsys.readouterr().err
        == "harem report: error: --anonymise and --info go with --official\n"
    )


def test_system_reports_draw_the_precision_recall_plane(tmp_path) -> None:
    from harem_pipeline.pipeline.official import GridReport, write_system_reports

    handmade = OFFICIAL / "handmade"
    reports = [
        GridReport(name, "total", "pessoa", alt, handmade / f"{name}.emir.ida")
        for name in ("eta", "gama", "vazio")
        for alt in ("strict", "relaxed")
    ]
    systems = {"sys_a": ["eta", "gama"], "sys_b": ["vazio"]}
    written = write_system_reports(tmp_path, reports, systems, "total", charts=True)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "relatorios/sys_a/relatorio_sys_a.html",
        "relatorios/sys_b/relatorio_sys_b.html",
        "relatorios/index.html",
    ]
    page = written[0].read_text("utf-8")
    assert "<svg" in page and page.count('<tr class="mine">') == 4
    # eta (class F 0.6857) above gama (0.3529); vazio's NaN F last, shown as a dash.
    order = re.findall(r"<td>(eta|gama|vazio)</td>", page)
    assert order[:3] == ["eta", "gama", "vazio"]
    assert '<td class="num">—</td>' in page
