"""Every shipped reference file of the semantic chain, rebuilt line for line.

Each stage runs as a campaign runs it (``pipeline.semantic``: the runs and
blocks of its fast path, written by the step) on every reference input.  The
expected files are what the official 2010 Java programs print
(``data/reference/``, see ``data/README.md``); ours must be equal after
dropping ``#`` lines and reading ``]::[`` as ``]:[``.  The ``.ida`` reports
must begin with every line of the Java's (ours add lines after them).  The
general path is held to the fast path byte for byte on a sample of these
inputs and on generated files (test_semantic_plain, test_semantic_runs,
test_semantic_keyed_blocks).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harem_pipeline.formats.alinhado import Record, format_line
from harem_pipeline.formats.semantic import (
    format_alts_record,
    format_emir_record,
    parse_alts_record,
    parse_emir_record,
)
from harem_pipeline.pipeline.ida_counts import read_tally
from harem_pipeline.pipeline.semantic import run_alts, run_altsem, run_emir, run_espurios
from harem_pipeline.reports.ida import format_ida_text
from harem_pipeline.stages.emir import EmirParams, parse_weights
from harem_pipeline.stages.ida import SemanticTally
from tests.helpers.semantic import (
    REFERENCE,
    assert_same_lines,
    comparable,
    parsed,
    reference_text,
    sampled,
    text_lines,
    unzipped,
)

CASES = sorted(
    str(path.relative_to(REFERENCE)).removesuffix(".veu.alts.gz")
    for path in REFERENCE.glob("*/*.veu.alts.gz")
)


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


def _produced(case: str, suffix: str, folder: Path, step: Callable[[Path, Path], Path]) -> Path:
    """What the campaign's ``step`` writes for the reference file ``case + suffix``."""
    return step(unzipped(_need(case, suffix), folder), folder / "ours")


def _lines(path: Path) -> list[str]:
    """A written file's lines as compared with the Java's."""
    return comparable(text_lines(path.read_bytes().decode("latin-1")))


def _report(tally: SemanticTally) -> list[str]:
    return text_lines(format_ida_text(tally, "sig"))


@pytest.mark.parametrize("case", CASES)
def test_alts(case: str, tmp_path: Path) -> None:
    ours = _lines(_produced(case, ".veu", tmp_path, run_alts))
    assert_same_lines(_expect(case, ".veu.alts"), ours, case + ".veu.alts")


@pytest.mark.parametrize("case", CASES)
def test_espurios(case: str, tmp_path: Path) -> None:
    ours = _lines(_produced(case, ".veu.alts", tmp_path, run_espurios))
    assert_same_lines(_expect(case, ".veu.alts.espurios"), ours, case + ".espurios")


@pytest.mark.parametrize("relative", [False, True], ids=["emir", "emir_relativo"])
@pytest.mark.parametrize("case", CASES)
def test_emir(case: str, relative: bool, tmp_path: Path) -> None:
    suffix = ".veu.alts.emir_relativo" if relative else ".veu.alts.emir"
    expected = _expect(case, suffix)

    def emir(path: Path, output: Path) -> Path:
        return run_emir(path, EmirParams(relative=relative), output)

    assert_same_lines(expected, _lines(_produced(case, ".veu.alts", tmp_path, emir)), case + suffix)


@pytest.mark.parametrize("case", CASES)
def test_altrel(case: str, tmp_path: Path) -> None:
    ours = _lines(_produced(case, ".veu.alts.emir", tmp_path, run_altsem))
    expected = _expect(case, ".veu.alts.emir.altrel")
    assert_same_lines(expected, ours, case + ".altrel")


@pytest.mark.parametrize("source", [".veu.alts.emir", ".veu.alts.emir.altrel"])
@pytest.mark.parametrize("case", CASES)
def test_ida(case: str, source: str, tmp_path: Path) -> None:
    expected = text_lines(reference_text(_path(case, source + ".ida")))
    _, tally = read_tally(unzipped(_need(case, source), tmp_path))
    assert_same_lines(expected, _report(tally)[: len(expected)], case + source + ".ida")


@pytest.mark.parametrize("case", CASES)
def test_relative_ida(case: str, tmp_path: Path) -> None:
    # gabriel ships no .emir_relativo: the report is made from our own relative Emir
    expected = text_lines(reference_text(_path(case, ".veu.alts.emir_relativo.ida")))
    alts = unzipped(_path(case, ".veu.alts"), tmp_path)
    _, tally = read_tally(run_emir(alts, EmirParams(relative=True), tmp_path / "ours"))
    assert_same_lines(expected, _report(tally)[: len(expected)], case + ".emir_relativo.ida")


ROUND_TRIP = sorted(
    str(path.relative_to(REFERENCE))
    for pattern in ("*/*.veu.alts.gz", "*/*.emir.gz", "*/*.altrel.gz", "*/*.emir_relativo.gz")
    for path in sampled(list(REFERENCE.glob(pattern)))
)
"""The files of a sample of the inputs (tests.helpers.semantic.SAMPLE): every kind of
record of each source.  The other files hold more records of the same shapes, written by
the same programs; generated Emir scores round-trip in test_semantic_properties."""


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
    # Emir options of bench/oracle_chains.py (the Java's -pesos, -penalizacoes, -relativo)
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
def test_emir_options(case: str, variant: str, tmp_path: Path) -> None:
    emir = run_emir(unzipped(_path(case, ".veu.alts"), tmp_path), VARIANTS[variant], tmp_path / "o")
    if _path(case, f".{variant}.emir").exists():
        expected = _expect(case, f".{variant}.emir")
        assert_same_lines(expected, _lines(emir), f"{case}.{variant}.emir")
    report = text_lines(reference_text(_path(case, f".{variant}.emir.ida")))
    _, tally = read_tally(emir)
    assert_same_lines(report, _report(tally)[: len(report)], f"{case}.{variant}.emir.ida")
