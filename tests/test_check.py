"""``harem check``: the CI gate's exit statuses and messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main

REPORT = {
    "precisao": 0.62,
    "abrangencia": None,
    "fields": {"combinada": {"medida_f": 0.7, "counts": {"correcto": 3}}},
    "signature": "harem:x",
}


@pytest.fixture()
def report(tmp_path: Path) -> str:
    path = tmp_path / "r.ida2mor.json"
    path.write_text(json.dumps(REPORT), encoding="utf-8")
    return str(path)


def test_all_bounds_hold(report: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", report, "--min", "fields.combinada.medida_f=0.7", "--max", "precisao=0.62"]
    assert main(argv) == 0
    assert "2 bound(s) hold" in capsys.readouterr().out


def test_failed_bounds_one_line_each(report: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "check",
        report,
        "--min",
        "fields.combinada.medida_f=0.75",
        "--max",
        "fields.combinada.counts.correcto=2",
        "--min",
        "precisao=0.5",
    ]
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "FAILED fields.combinada.medida_f = 0.7, required >= 0.75",
        "FAILED fields.combinada.counts.correcto = 3, required <= 2",
    ]


def test_undefined_value_fails(report: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", report, "--min", "abrangencia=0"]) == 1
    assert "abrangencia is undefined (null)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv_tail", "message"),
    [
        (["--min", "fields.combinada.f=0.5"], "expected the key 'fields.combinada.f'"),
        (["--min", "signature=0.5"], "expected a number at 'signature'"),
        (["--min", "precisao"], "expected KEY=VALUE"),
        (["--min", "precisao=high"], "expected a number after '='"),
    ],
)
def test_mistakes_exit_2(
    report: str, argv_tail: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", report, *argv_tail]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["check", str(bad), "--min", "a=1"]) == 2
    assert "invalid JSON" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "none.json"), "--min", "a=1"]) == 2
    assert "no such file" in capsys.readouterr().err
