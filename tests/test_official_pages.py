"""The official result pages equal what ``GlobalSemanticReporter`` printed.

References (``data/reference/official/``) are the Java's pages for the same
``.ida`` files, their timestamp line dropped and the ``participacoes/``
folder taken off the row names (see ``data/README.md``).
"""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from harem_pipeline.errors import InputError
from harem_pipeline.reports.official import (
    CODE_NAMES,
    anonymise,
    format_key,
    java_timestamp,
    parse_participants,
    parse_semantic_entry,
    participant_names,
    read_participants,
    read_semantic_entry,
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
