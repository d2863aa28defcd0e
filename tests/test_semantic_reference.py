"""Every shipped reference file of the semantic chain, rebuilt line for line.

The expected files are what the official 2010 Java programs print
(``data/reference/``, see ``data/README.md``); ours must be equal after
dropping ``#`` lines and reading ``]::[`` as ``]:[``.  The ``.ida`` reports
must begin with every line of the Java's (ours add lines after them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harem_pipeline.formats.alinhado import Record, format_line
from harem_pipeline.formats.semantic import (
    format_alts_record,
    format_emir_record,
    parse_alts_record,
    parse_emir_record,
)
from harem_pipeline.reports.ida import format_ida_text
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.emir import EmirParams, evaluate_lines, parse_weights
from harem_pipeline.stages.espurios import collect_spurious
from harem_pipeline.stages.ida import tally_semantic
from tests.helpers.semantic import (
    REFERENCE,
    assert_same_lines,
    comparable,
    forget_parsed,
    parsed,
    reference_text,
    rendered,
    text_lines,
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


@pytest.mark.parametrize("case", CASES)
def test_alts(case: str) -> None:
    ours = rendered(organise_alts(parsed(_need(case, ".veu")), case))
    assert_same_lines(_expect(case, ".veu.alts"), comparable(ours), case + ".veu.alts")


@pytest.mark.parametrize("case", CASES)
def test_espurios(case: str) -> None:
    ours = rendered(collect_spurious(parsed(_path(case, ".veu.alts")), case))
    assert_same_lines(_expect(case, ".veu.alts.espurios"), comparable(ours), case + ".espurios")


@pytest.mark.parametrize("relative", [False, True], ids=["emir", "emir_relativo"])
@pytest.mark.parametrize("case", CASES)
def test_emir(case: str, relative: bool) -> None:
    suffix = ".veu.alts.emir_relativo" if relative else ".veu.alts.emir"
    expected = _expect(case, suffix)
    lines = parsed(_path(case, ".veu.alts"))
    ours = rendered(evaluate_lines(lines, EmirParams(relative=relative), case))
    assert_same_lines(expected, comparable(ours), case + suffix)


@pytest.mark.parametrize("case", CASES)
def test_altrel(case: str) -> None:
    ours = rendered(select_alternatives(parsed(_need(case, ".veu.alts.emir")), case))
    expected = _expect(case, ".veu.alts.emir.altrel")
    assert_same_lines(expected, comparable(ours), case + ".altrel")


@pytest.mark.parametrize("source", [".veu.alts.emir", ".veu.alts.emir.altrel"])
@pytest.mark.parametrize("case", CASES)
def test_ida(case: str, source: str) -> None:
    expected = text_lines(reference_text(_path(case, source + ".ida")))
    tally = tally_semantic(parsed(_need(case, source)), case)
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
    for path in REFERENCE.glob(pattern)
)


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
