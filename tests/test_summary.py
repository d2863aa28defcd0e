"""Campaign summary rows and their three renderings."""

from __future__ import annotations

import csv
import io
import json

from harem_pipeline.reports.summary import (
    COLUMNS,
    build_row,
    build_veil_row,
    format_csv,
    format_json,
    format_markdown,
)

IDENTIFICATION = {
    # Figures of data/reference/exemplo0/total_muc.alinhado.avalida.globalid.
    "precisao": 0.42058823529411765,
    "abrangencia": 1.1916666666666667,
    "medida_f": 0.6217391304347826,
    "signature": "harem:x|run:aaa",
    "measures": {
        "labelled": {"exact": {"f1": 0.5}, "overlap": {"f1": 0.75}, "intersection": {"f1": None}}
    },
}
MORPHOLOGY = {
    "signature": "harem:x|run:aaa|scenario:abs",
    "fields": {"combinada": {"precisao": 1.0, "abrangencia": 0.5, "medida_f": 2 / 3}},
}


def test_row_takes_the_report_numbers_unchanged() -> None:
    row = build_row("sys", "total", "absolute", IDENTIFICATION, MORPHOLOGY)
    assert row.id_precision == 0.42058823529411765
    assert row.id_f == 0.6217391304347826
    assert row.exact_f1 == 0.5 and row.overlap_f1 == 0.75 and row.intersection_f1 is None
    assert (row.morf_precision, row.morf_recall, row.morf_f) == (1.0, 0.5, 2 / 3)
    assert row.signature == "harem:x|run:aaa|scenario:abs"


def test_run_without_morphology_has_undefined_morphology_columns() -> None:
    row = build_row("sys", "total", "absolute", IDENTIFICATION, None)
    assert (row.morf_precision, row.morf_recall, row.morf_f) == (None, None, None)
    assert row.signature == "harem:x|run:aaa"


def test_renderings_agree() -> None:
    rows = [
        build_row("a", "total", "absolute", IDENTIFICATION, MORPHOLOGY),
        build_row("b", "pt", "relative", IDENTIFICATION, None),
    ]
    markdown = format_markdown(rows)
    # no Ida report in this summary: its three leading columns are undefined
    row = "| a | total | absolute | - | - | - | 0.4206 | 1.1917 | 0.6217 | 0.5000 | 0.7500 | - |"
    assert row in markdown
    assert "| b | pt | relative |" in markdown and markdown.count("\n| ") == 3
    table = list(csv.DictReader(io.StringIO(format_csv(rows))))
    assert table[0]["id_f"] == "0.6217391304347826"
    assert table[1]["morf_f"] == ""
    data = json.loads(format_json(rows))
    assert data["rows"][1]["morf_f"] is None
    assert data["rows"][0]["morf_f"] == 2 / 3


def test_a_signature_does_not_break_the_markdown_table() -> None:
    rows = [build_row("a", "total", "absolute", IDENTIFICATION, MORPHOLOGY)]
    line = next(x for x in format_markdown(rows).splitlines() if x.startswith("| a |"))
    assert "`harem:x\\|run:aaa\\|scenario:abs`" in line
    unescaped = line.replace("\\|", "")
    assert unescaped.count("|") == len(COLUMNS) + 1  # one cell per column, no more


def test_the_markdown_says_which_identification_f_it_shows() -> None:
    markdown = format_markdown([build_row("a", "total", "absolute", IDENTIFICATION, MORPHOLOGY)])
    assert "Id. P, Id. R, Id. F: Ida2ID's identification measures with partial credit" in (
        " ".join(markdown.split())
    )
    assert "not the figures the official HAREM result tables show" in " ".join(markdown.split())


def test_notes_come_once_under_the_title() -> None:
    rows = [build_row("a", "total", "absolute", IDENTIFICATION, None)]
    markdown = format_markdown(rows, notes=["No MORF in the collection."])
    assert markdown.count("No MORF in the collection.") == 1
    assert markdown.index("No MORF") < markdown.index("| Run |")


STRICT_IDA = {
    "signature": "harem:x|run:aaa|scenario:abs|alt:strict",
    "classificacao": {"medida_f": 0.4},
    "identificacao": {"medida_f": 0.6},
}
RELATIVE_IDA = {
    "signature": "harem:x|run:aaa|scenario:rel|alt:strict",
    "classificacao": {"medida_f": 0.5},
    # reference total_harem.emir_relativo.ida's kind of figure: not a proportion
    "identificacao": {"medida_f": 1.0131},
}


def test_a_row_is_signed_by_the_ida_report_it_ranks_by() -> None:
    # Without morphology the two scenarios share their Ida2ID report; their Ida reports
    # (and classification F) differ, and so must their signatures.
    absolute = build_row("sys", "total", "absolute", IDENTIFICATION, None, STRICT_IDA)
    relative = build_row("sys", "total", "relative", IDENTIFICATION, None, RELATIVE_IDA)
    assert absolute.signature == "harem:x|run:aaa|scenario:abs|alt:strict"
    assert relative.signature == "harem:x|run:aaa|scenario:rel|alt:strict"
    # the Ida's signature wins over the morphology's too
    with_morphology = build_row("sys", "total", "absolute", IDENTIFICATION, MORPHOLOGY, STRICT_IDA)
    assert with_morphology.signature == STRICT_IDA["signature"]


def test_the_relative_identification_above_one_is_explained_once() -> None:
    absolute = build_row("sys", "total", "absolute", IDENTIFICATION, None, STRICT_IDA)
    relative = build_row("sys", "total", "relative", IDENTIFICATION, None, RELATIVE_IDA)
    markdown = format_markdown([absolute, relative])
    assert "| 1.0131 |" in markdown  # the official figure, kept as printed
    assert markdown.count("is not a proportion and may exceed 1") == 1
    assert "is not a proportion" not in format_markdown([absolute])


def test_without_morf_the_markdown_has_no_morphology_columns() -> None:
    rows = [build_row("sys", "total", "absolute", IDENTIFICATION, None, STRICT_IDA)]
    markdown = format_markdown(rows, morphology=False)
    header = next(line for line in markdown.splitlines() if line.startswith("| Run |"))
    assert "Morf." not in markdown
    assert header.count("|") == len(COLUMNS) - 3 + 1
    # the CSV keeps every column (a stable schema for scripts)
    assert "morf_f" in format_csv(rows).splitlines()[0]


def test_each_figure_family_has_its_paragraph_under_the_table() -> None:
    from harem_pipeline.reports.summary import FAMILY_LEGENDS

    markdown = format_markdown([build_row("a", "total", "absolute", IDENTIFICATION, MORPHOLOGY)])
    table_end = markdown.rindex("| a |")
    for column, paragraph in FAMILY_LEGENDS:
        assert column in dict(COLUMNS).values()  # each names a column the table has
        assert markdown.index(paragraph) > table_end
    assert [c for c, _ in FAMILY_LEGENDS] == ["Class. F", "Id. F (Ida)", "Id. F", "Exact F1"]


def test_a_scenario_grid_row_carries_its_veil_alt_and_only_the_ida_figures() -> None:
    ida = {
        "signature": "harem:x|veil:pessoa|alt:relaxed",
        "identificacao": {"medida_f": 0.5},
        "classificacao": {"medida_f": 0.25},
    }
    own = build_row("a", "total", "absolute", IDENTIFICATION, MORPHOLOGY, ida, ida)
    grid = build_veil_row("a", "total", "pessoa", "relaxed", ida)
    relative = build_veil_row("a", "total", "pessoa", "relative", ida)
    assert (grid.veil, grid.alt, grid.scenario) == ("pessoa", "relaxed", "absolute")
    assert (relative.alt, relative.scenario) == ("strict", "relative")
    assert (grid.class_f, grid.id_f_official, grid.class_f_relaxed) == (0.25, 0.5, None)
    # Ida2ID and the morphology are scored under the campaign's veil: not borrowed.
    assert (grid.id_f, grid.morf_f, grid.exact_f1) == (None, None, None)
    table = list(csv.DictReader(io.StringIO(format_csv([own, grid]))))
    assert list(table[0])[-2:] == ["veil", "alt"]
    assert (table[0]["veil"], table[0]["alt"]) == ("", "")
    assert (table[1]["veil"], table[1]["alt"], table[1]["class_f"]) == ("pessoa", "relaxed", "0.25")
    assert table[1]["id_f"] == ""
    data = json.loads(format_json([own], [grid]))
    assert [row["veil"] for row in data["rows"]] == [None]
    assert data["veil_rows"][0]["alt"] == "relaxed"
    assert "veil_rows" not in json.loads(format_json([own]))
    # The Markdown keeps its columns: no veil or ALT there.
    assert "Veil" not in format_markdown([own])
