"""HAREM report files (.globalid, .ida, warnings): parsed and written back byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from harem_pipeline.formats.report import (
    Field,
    Text,
    format_report,
    parse_report,
    read_report,
    write_report,
)
from harem_pipeline.text.textio import read_bytes
from tests.helpers.paths import DATA

REPORTS = sorted(
    p
    for p in (DATA / "reference").glob("*/*.gz")
    if p.name.endswith((".ida.gz", ".globalid.gz", ".stderr.gz"))
)


def test_every_report_of_the_reference_outputs_is_here() -> None:
    # 4 .globalid, 4 aligner .stderr and 24 .ida files (every Ida report of the Java chain),
    # the 12 .ida files of the simulated cases (reference/simulated/), and the 41 of the
    # TEMPO track (reference/tempo/: the Java's Ida on each .emir, .altrel and .tempo), and
    # the 14 of the bracket case (reference/brackets/: 12 .ida, 1 .globalid, 1 .stderr)
    # and the 5 of the bracket-edge case (reference/bracket-edges/: 3 .ida, 1 each else).
    assert len(REPORTS) == 32 + 12 + 41 + 14 + 5


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_report_round_trip_gives_the_same_bytes(path: Path, tmp_path: Path) -> None:
    encoding, lines = read_report(path)
    out = tmp_path / "copy"
    write_report(out, lines, encoding)
    assert out.read_bytes() == read_bytes(path)


def test_line_kinds_of_a_globalid() -> None:
    # data/reference/exemplo0/total_muc.alinhado.avalida.globalid, first lines.
    _, lines = read_report(DATA / "reference/exemplo0/total_muc.alinhado.avalida.globalid.gz")
    assert lines[0] == Field("Total na CD", "12")
    assert lines[8] == Field("Precisão", "0.42058823529411765")
    assert sum(isinstance(line, Field) for line in lines) == 14


def test_titles_descriptions_and_blank_lines_are_text() -> None:
    text = "Descrição do cenário avaliado:\n\t#LOCAL:ORGANIZACAO\n\nMedida F: 0.5\r\n"
    lines = parse_report(text)
    assert lines == [
        Text("Descrição do cenário avaliado:"),
        Text("\t#LOCAL:ORGANIZACAO"),
        Text(""),
        Field("Medida F", "0.5"),
    ]
    assert lines[3].eol == "\r\n"
    assert format_report(lines) == text
