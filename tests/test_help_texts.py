"""What ``--help`` says is true and complete."""

from __future__ import annotations

import re

import pytest

from harem_pipeline.cli import main


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse's wrapping undone


def test_ida2id_says_95_percent_once(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of("ida2id", capsys)
    assert "95% document-bootstrap" in text and "%%" not in text


def test_ida2id_lists_the_styles(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--style {harem,muc,relaxado}" in help_of("ida2id", capsys)


def test_ida2mor_explains_abs_and_rel(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of("ida2mor", capsys)
    assert re.search(r"-abs \w", text) and re.search(r"-rel \w", text), text


def test_report_describes_its_argument(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of("report", capsys)
    assert "OUTPUT_DIR the campaign's output folder" in text


def test_measures_says_when_exact_equals_conlleval(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of("measures", capsys)
    assert "equals conlleval" not in text.replace("equals conlleval for IOB1/IOB2", "")
    assert "equals conlleval for IOB1/IOB2" in text
    assert "adjacent same-type IOBES singletons" in text


def test_stats_lists_subset_names(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of("stats", capsys)
    assert "subset names" in text
