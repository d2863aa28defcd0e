"""The TEMPO track rebuilt on the official programs' outputs, line for line.

``data/reference/tempo/`` (see ``data/README.md``) holds Emir files and what
``AvalTEMPO.awk`` printed for them in the 2008 settings (gawk in a ``pt_PT``
ISO-8859-1 locale with the decimal point honoured, ``docs/spec/tempo.md``,
"Decimal point and locale"), in the three modes, and what the official
``GlobalSemanticEvaluator`` printed for each ``.tempo``: Linguateca's worked
example ``exemplo1`` and four runs on the TEMPO collection (the collection
itself and three with edited time attributes, through the official chain), and
two files of made-up records drawn by ``random_tempo.py`` (seeds 2026 and 7: odd
dates, durations in several units, missing and empty values, several or no
system entities, spurious golden sides, classic values such as ``1.0E-4``).
Ours must be equal byte for byte (the ``.tempo`` and its ``ERROS.txt``), and
our Ida report must begin with every line of the Java's.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline.ida import run_ida
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.pipeline.tempo import run_tempo
from tests.helpers.semantic import REFERENCE, reference_text, text_lines, unzipped

TEMPO = REFERENCE / "tempo"
RUNS = ("gold", "edit1", "edit2", "edit3")
INPUTS = (
    ["exemplo1.emir"]
    + [f"{run}.veu.alts.{kind}" for run in RUNS for kind in ("emir", "emir.altrel")]
    + ["random1.emir", "random2.emir"]
)
CASES = [
    (name, mode)
    for name in INPUTS
    for mode in (1, 2, 3)
    if (TEMPO / f"{name}.m{mode}.tempo.gz").exists()
]
BLOCK = re.compile(r"MaxCSC_CD\([^)]*\) MaxCSC_S\([^)]*\) CSC\([^)]*\).*?(::\[\{.*)\Z")

STRICT = ReportParams(scenario=Scenario.ABSOLUTE, alt=Alt.STRICT, bootstrap=0)


def _input(name: str, folder: Path) -> Path:
    return unzipped(TEMPO / f"{name}.gz", folder)


def test_every_input_has_its_three_modes() -> None:
    assert len(CASES) == 3 * len(INPUTS) == 33


@pytest.mark.parametrize(("name", "mode"), CASES, ids=[f"{n}-m{m}" for n, m in CASES])
def test_tempo_equals_gawk(name: str, mode: int, tmp_path: Path) -> None:
    emir = _input(name, tmp_path)
    written = run_tempo(emir, mode, tmp_path / "out.tempo", tmp_path / "out.ERROS.txt")
    expected = (TEMPO / f"{name}.m{mode}.tempo.gz").read_bytes()
    assert written.path.read_bytes() == _gunzip(expected)
    errors = TEMPO / f"{name}.m{mode}.ERROS.txt.gz"
    if errors.exists():
        assert written.errors_path is not None
        assert written.errors_path.read_bytes() == _gunzip(errors.read_bytes())
        assert written.errors == len(text_lines(reference_text(errors)))
    else:  # no wrong attribute: AvalTEMPO never opens the side file
        assert written.errors_path is None and not (tmp_path / "out.ERROS.txt").exists()


def _gunzip(data: bytes) -> bytes:
    return gzip.decompress(data)


@pytest.mark.parametrize(
    ("name", "mode"), [("exemplo1.emir", 1), ("edit1.veu.alts.emir", 3)], ids=["ex1", "edit1"]
)
def test_tempo_only_equals_gawk_todos_0(name: str, mode: int, tmp_path: Path) -> None:
    emir = _input(name, tmp_path)
    written = run_tempo(emir, mode, tmp_path / "out.tempo", tmp_path / "e.txt", tempo_only=True)
    expected = reference_text(TEMPO / f"{name}.m{mode}.todos0.tempo.gz")
    assert written.path.read_bytes().decode("latin-1") == expected
    assert all(
        line == "" or line.startswith(("#", "DOC ")) or "MaxCSC_CD_tempo(" in line
        for line in text_lines(expected)
    )


def test_the_shipped_example_records_reproduce(tmp_path: Path) -> None:
    # The 2008 package's own exemplo1 .tempo was made from another Emir version (some
    # system entities print other attributes): its TEMPO records' values and blocks are
    # compared, in order; 32 of them carry TEMPO points, 4 are rewritten with none.
    emir = _input("exemplo1.emir", tmp_path)
    ours = run_tempo(emir, 1, tmp_path / "out.tempo", tmp_path / "e.txt").path
    shipped = text_lines(reference_text(TEMPO / "exemplo1.shipped.emir.tempo.gz"))
    mine = text_lines(ours.read_bytes().decode("latin-1"))

    def blocks(lines: list[str]) -> list[str]:
        found = (BLOCK.search(line) for line in lines if "MaxCSC_CD_tempo(" in line)
        return [m.group(0) for m in found if m is not None]

    expected, actual = blocks(shipped), blocks(mine)
    assert len(expected) == 36 and actual == expected
    assert sum("MaxCSC_CD_tempo(0)" not in block for block in actual) == 32


@pytest.mark.parametrize(("name", "mode"), CASES, ids=[f"{n}-m{m}" for n, m in CASES])
def test_ida_of_tempo_equals_the_java(name: str, mode: int, tmp_path: Path) -> None:
    tempo = _input(f"{name}.m{mode}.tempo", tmp_path)
    outputs = run_ida(tempo, STRICT, "signature", tmp_path / "out.ida")
    java = text_lines(reference_text(TEMPO / f"{name}.m{mode}.tempo.ida.gz"))
    ours = text_lines(outputs.text_path.read_bytes().decode("latin-1"))
    assert ours[: len(java)] == java


@pytest.mark.parametrize("mode", [1, 2, 3])
@pytest.mark.parametrize("kind", ["emir", "emir.altrel"])
def test_the_collection_against_itself_scores_one(mode: int, kind: str, tmp_path: Path) -> None:
    emir = _input(f"gold.veu.alts.{kind}", tmp_path)
    tempo = run_tempo(emir, mode, tmp_path / "gold.tempo", tmp_path / "e.txt")
    assert tempo.errors == 0
    report = run_ida(tempo.path, STRICT, "signature", tmp_path / "gold.tempo.ida")
    lines = report.text_path.read_bytes().decode("latin-1").split("\n")
    classification = lines[lines.index("Avaliação Global - Classificação") :]
    assert "Medida F: 1.0" in classification
    counts = report.counts.total
    assert counts.system_csc == counts.max_cd == counts.max_system > 0
