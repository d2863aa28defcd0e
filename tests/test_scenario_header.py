"""The Vizir scenario travels inside the files, not only in their names.

Vizir writes ``# Cenário: absoluto`` (or ``relativo``) as the first line of
its output, a ``#`` header line every reader passes through; AltinaMor keeps
it and Ida2Mor reads it.  The ``.abs``/``.rel`` part of the name is only a
fallback, and ``-abs``/``-rel`` override both.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.model import Scenario
from harem_pipeline.pipeline.morphology import read_scenario

VEUS = '<EM MORF="F,S">APSS</EM> ---> [<EM MORF="M,S">APSS</EM>]:[Correcto]\n'


@pytest.fixture
def altmor(tmp_path: Path) -> Path:
    """A relative-scenario AltinaMor output under a name that says no scenario."""
    source = tmp_path / "run.alinhado.avalida.total"
    source.write_text(VEUS, encoding="utf-8")
    assert main(["vizir", str(source), "-rel"]) == 0
    vizir = tmp_path / "run.alinhado.avalida.total.vizir"
    assert vizir.read_text(encoding="utf-8").splitlines()[0] == "# Cenário: relativo"
    assert main(["altmor", str(vizir)]) == 0
    made = tmp_path / "run.alinhado.avalida.total.altmor"
    assert made.read_text(encoding="utf-8").splitlines()[0] == "# Cenário: relativo"
    renamed = tmp_path / "mine.altmor"
    shutil.move(made, renamed)
    return renamed


def scenario_of_report(path: Path) -> str:
    return json.loads(path.with_name(path.name + ".json").read_text(encoding="utf-8"))["scenario"]


def test_ida2mor_reads_the_scenario_from_the_file(altmor: Path) -> None:
    assert read_scenario(altmor) is Scenario.RELATIVE
    assert main(["ida2mor", str(altmor), "--bootstrap", "0"]) == 0
    report = altmor.with_suffix(".ida2mor")
    assert "Cenário: relativo" in report.read_text(encoding="utf-8")
    assert scenario_of_report(report) == "relative"


def test_the_flags_override_the_file(altmor: Path) -> None:
    assert main(["ida2mor", str(altmor), "-abs", "--bootstrap", "0"]) == 0
    assert scenario_of_report(altmor.with_suffix(".ida2mor")) == "absolute"


def test_the_header_wins_over_the_name(altmor: Path) -> None:
    misnamed = altmor.with_name("mine.abs.altmor")
    shutil.move(altmor, misnamed)
    assert main(["ida2mor", str(misnamed), "--bootstrap", "0"]) == 0
    assert scenario_of_report(misnamed.with_suffix(".ida2mor")) == "relative"


def test_the_name_is_the_fallback_for_files_without_the_header(tmp_path: Path) -> None:
    old = tmp_path / "old.abs.altmor"  # an output of an earlier version: no header
    old.write_text(
        '<EM MORF="F,S">APSS</EM> ---> [<EM MORF="F,S">APSS</EM>]:'
        "[(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)]\n",
        encoding="utf-8",
    )
    assert read_scenario(old) is None
    assert main(["ida2mor", str(old), "--bootstrap", "0"]) == 0
    assert scenario_of_report(old.with_suffix(".ida2mor")) == "absolute"
