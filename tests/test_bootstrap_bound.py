"""One bound on the bootstrap's resamples, and a report never without its JSON twin.

``MAX_RESAMPLES`` bounds ``bootstrap:`` in pipeline.yaml (tests/test_config.py)
and every command's ``--bootstrap``: 10^9 resamples would ask numpy for
574 GiB after the text report was written, leaving it without its twin.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import harem_pipeline.pipeline.ida2id as ida2id_step
import harem_pipeline.pipeline.naming as naming
from harem_pipeline.cli import main
from harem_pipeline.measures.bootstrap import MAX_RESAMPLES
from harem_pipeline.pipeline.ida2id import run_ida2id
from harem_pipeline.pipeline.params import ReportParams


@pytest.fixture()
def evaluated(data_dir: Path) -> Path:
    return data_dir / "reference" / "exemplo1" / "total_harem.alinhado.avalida.gz"


@pytest.mark.parametrize(
    "argv",
    [
        ["ida2id", "IN", "-o", "OUT", "--bootstrap", "1000000000"],
        ["ida2mor", "IN", "-abs", "-o", "OUT", "--bootstrap", "1000000000"],
        ["ida", "IN", "-o", "OUT", "--bootstrap", "1000000000"],
        ["measures", "IN", "--format", "conll", "--json", "-o", "OUT", "--bootstrap", "100001"],
        ["compare", "A", "B", "--bootstrap", "100001"],
    ],
)
def test_every_bootstrap_option_has_the_bound(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / "z") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--bootstrap: expected a whole number, 0 to {MAX_RESAMPLES}, found " in err
    assert list(tmp_path.iterdir()) == []


def test_ida2id_with_too_many_resamples_writes_nothing(
    evaluated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "z"
    assert main(["ida2id", str(evaluated), "--bootstrap", "1000000000", "-o", str(out)]) == 2
    assert "--bootstrap: expected a whole number, 0 to 100000, found 1000000000" in (
        capsys.readouterr().err
    )
    assert list(tmp_path.iterdir()) == []
    assert (
        main(["ida2id", str(evaluated), "--bootstrap", str(MAX_RESAMPLES // 1000), "-o", str(out)])
        == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["z", "z.json"]


def test_a_bootstrap_that_fails_leaves_neither_report(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def out_of_memory(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(ida2id_step, "identification_intervals", out_of_memory)
    with pytest.raises(MemoryError):
        run_ida2id(
            evaluated, ReportParams(evaluation=None, bootstrap=10), "harem:test", tmp_path / "z"
        )
    assert list(tmp_path.iterdir()) == []


def test_a_twin_that_cannot_be_written_takes_the_text_report_back(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = naming.write_text_atomic

    def full_disk_for_json(path: Path, text: str, encoding: str = "utf-8") -> None:
        if str(path).endswith(".json"):
            raise OSError(28, "No space left on device")
        written(path, text, encoding)

    monkeypatch.setattr(naming, "write_text_atomic", full_disk_for_json)
    with pytest.raises(OSError, match="No space"):
        run_ida2id(
            evaluated, ReportParams(evaluation=None, bootstrap=10), "harem:test", tmp_path / "z"
        )
    assert list(tmp_path.iterdir()) == []
