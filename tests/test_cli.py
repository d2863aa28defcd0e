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
    from harem_pipeline.progress import QUIET_VARIABLE, is_quiet

    monkeypatch.delenv(QUIET_VARIABLE, raising=False)
    assert not is_quiet()
    assert main(["--quiet", "check", "report.json"]) == 2  # no bound given
    assert is_quiet()
