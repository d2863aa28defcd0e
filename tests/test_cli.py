"""The command line's common behaviour."""

from __future__ import annotations

import pytest

from harem_pipeline.cli import main


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: harem" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "harem-pipeline" in capsys.readouterr().out


def test_global_quiet_turns_progress_bars_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from harem_pipeline.text.progress import QUIET_VARIABLE, is_quiet

    monkeypatch.delenv(QUIET_VARIABLE, raising=False)
    assert not is_quiet()
    assert main(["--quiet", "check", "report.json"]) == 2  # no bound given
    assert is_quiet()


def test_unwritable_output_is_one_line_not_a_traceback(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "r.alinhado"
    source.write_text("DOC d\nEOD\n", encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    # The output's folder is a file: the write fails with an OSError.
    assert main(["avalida", str(source), "-o", str(blocker / "out.avalida")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harem avalida: error: ") and err.count("\n") == 1
