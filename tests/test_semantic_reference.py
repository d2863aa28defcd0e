"""Every shipped reference file of the semantic chain, rebuilt line for line.

The expected files are what the official 2010 Java programs print
(``data/reference/``, see ``data/README.md``); ours must be equal after
dropping ``#`` lines and reading ``]::[`` as ``]:[``.  The ``.ida`` reports
must begin with every line of the Java's (ours add lines after them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harem_pipeline.formats.alinhado import Record, format_line, parse_line
from harem_pipeline.formats.semantic import (
    format_alts_record,
    format_emir_record,
    parse_alts_record,
    parse_emir_record,
    parse_semantic_line,
)
from harem_pipeline.reports.ida import format_ida_text
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.emir import EmirParams, evaluate_lines, parse_weights
from harem_pipeline.stages.espurios import collect_spurious
from harem_pipeline.stages.ida import tally_semantic
from tests.helpers.semantic import (
    EMIR_STAGES,
    REFERENCE,
    assert_same_lines,
    comparable,
    forget_parsed,
    general_tally,
    general_written,
    parsed,
    reference_text,
    rendered,
    sampled,
    text_lines,
    unzipped,
)

CASES = sorted(
    str(path.relative_to(REFERENCE)).removesuffix(".veu.alts.gz")
    for path in REFERENCE.glob("*/*.veu.alts.gz")
)


@pytest.fixture(scope="module", autouse=True)
def _parsed_files_kept_for_this_module_only() -> Iterator[None]:
    """The readings shared by this module's tests are let go when it is done."""
    yield
    forget_parsed()


def _path(case: str, suffix: str) -> Path:
    return REFERENCE / f"{case}{suffix}.gz"


def _need(case: str, suffix: str) -> Path:
    """The reference file, or a skip: the simulated cases ship only some of their files."""
    path = _path(case, suffix)
    if not path.exists():
        pytest.skip(f"no {path.name}")
    return path


def _expect(case: str, suffix: str) -> list[str]:
    return comparable(text_lines(reference_text(_need(case, suffix))))


def test_cases_found() -> None:
    # 5 gabriel + 1 exemplo0 + 2 exemplo1, plus the simulated ones
    assert len(CASES) >= 8


def _general(
    case: str, suffix: str, folder: Path, stage: Callable, marker: str | None
) -> list[str]:
    """The general path's lines of ``stage`` on the reference file, as compared with the Java's.

    Worked out by :func:`~tests.helpers.semantic.general_written`, the text the fast paths
    are held to in the modules that share this one's worker (conftest.SHARED_WORK): each
    stage runs once per file, and what the Java wrote is then checked on that same text.
    """
    parse = parse_semantic_line if ".emir" in suffix else parse_line
    path = unzipped(_need(case, suffix), folder)
    return comparable(text_lines(general_written(path, stage, marker, parse)))


@pytest.mark.parametrize("case", CASES)
def test_alts(case: str, tmp_path: Path) -> None:
    ours = _general(case, ".veu", tmp_path, organise_alts, ":")
    assert_same_lines(_expect(case, ".veu.alts"), ours, case + ".veu.alts")


@pytest.mark.parametrize("case", CASES)
def test_espurios(case: str, tmp_path: Path) -> None:
    ours = _general(case, ".veu.alts", tmp_path, collect_spurious, None)
    assert_same_lines(_expect(case, ".veu.alts.espurios"), ours, case + ".espurios")


@pytest.mark.parametrize("relative", [False, True], ids=["emir", "emir_relativo"])
@pytest.mark.parametrize("case", CASES)
def test_emir(case: str, relative: bool, tmp_path: Path) -> None:
    suffix = ".veu.alts.emir_relativo" if relative else ".veu.alts.emir"
    expected = _expect(case, suffix)
    stage = EMIR_STAGES["relative" if relative else "absolute"]
    assert_same_lines(expected, _general(case, ".veu.alts", tmp_path, stage, ":"), case + suffix)


@pytest.mark.parametrize("case", CASES)
def test_altrel(case: str, tmp_path: Path) -> None:
    ours = _general(case, ".veu.alts.emir", tmp_path, select_alternatives, ":")
    expected = _expect(case, ".veu.alts.emir.altrel")
    assert_same_lines(expected, ours, case + ".altrel")


@pytest.mark.parametrize("source", [".veu.alts.emir", ".veu.alts.emir.altrel"])
@pytest.mark.parametrize("case", CASES)
def test_ida(case: str, source: str, tmp_path: Path) -> None:
    expected = text_lines(reference_text(_path(case, source + ".ida")))
    tally = general_tally(unzipped(_need(case, source), tmp_path), None)
    ours = text_lines(format_ida_text(tally, "sig"))
    assert_same_lines(expected, ours[: len(expected)], case + source + ".ida")


@pytest.mark.parametrize("case", CASES)
def test_relative_ida(case: str) -> None:
    # gabriel ships no .emir_relativo: the report is made from our own relative Emir
    expected = text_lines(reference_text(_path(case, ".veu.alts.emir_relativo.ida")))
    lines = parsed(_path(case, ".veu.alts"))
    emir = list(evaluate_lines(lines, EmirParams(relative=True), case))
    ours = text_lines(format_ida_text(tally_semantic(emir, case), "sig"))
    assert_same_lines(expected, ours[: len(expected)], case + ".emir_relativo.ida")


ROUND_TRIP = sorted(
    str(path.relative_to(REFERENCE))
    for pattern in ("*/*.veu.alts.gz", "*/*.emir.gz", "*/*.altrel.gz", "*/*.emir_relativo.gz")
    for path in sampled(list(REFERENCE.glob(pattern)))
)
"""The files of a sample of the inputs (tests.helpers.semantic.SAMPLE): every kind of
record of each source.  The other files hold the same run's records under other veils;
generated Emir scores round-trip in test_semantic_properties."""


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_format_round_trip(name: str) -> None:
    """parse(format(x)) == x and format(parse(line)) == line for every record."""
    path = REFERENCE / name
    emir = ".emir" in name
    for item in parsed(path):
        if not isinstance(item, Record):
            continue
        if emir:
            value = parse_emir_record(item, name)
            again = format_emir_record(value)
            assert parse_emir_record(again, name) == value
        else:
            value = parse_alts_record(item, name)
            again = format_alts_record(value)
            assert parse_alts_record(again, name) == value
        assert format_line(again) == format_line(item)


VARIANTS = {
    # Emir options of bench/oracle_semantic.py (the Java's -pesos, -penalizacoes, -relativo)
    "pesos": EmirParams(parse_weights("1;2;1;0.5")),
    "penalizacoes_nao": EmirParams(),
    "relativo_pesos": EmirParams(parse_weights("0.5;1;0.25;0.125"), relative=True),
}
VARIANT_CASES = sorted(
    (str(path.relative_to(REFERENCE)).removesuffix(f".{variant}.emir.ida.gz"), variant)
    for variant in VARIANTS
    for path in REFERENCE.glob(f"*/*.{variant}.emir.ida.gz")
)


@pytest.mark.parametrize(("case", "variant"), VARIANT_CASES)
def test_emir_options(case: str, variant: str) -> None:
    lines = parsed(_path(case, ".veu.alts"))
    emir = list(evaluate_lines(lines, VARIANTS[variant], case))
    if _path(case, f".{variant}.emir").exists():
        expected = _expect(case, f".{variant}.emir")
        assert_same_lines(expected, comparable(rendered(emir)), f"{case}.{variant}.emir")
    report = text_lines(reference_text(_path(case, f".{variant}.emir.ida")))
    ours = text_lines(format_ida_text(tally_semantic(emir, case), "sig"))
    assert_same_lines(report, ours[: len(report)], f"{case}.{variant}.emir.ida")
