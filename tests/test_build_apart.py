"""``harem run`` with several workers: the runs' chains built in shares, a process each.

The shares must write exactly what one worker writes, a failing run must
still leave the others a summary marked incomplete (and the exit status 1),
and an unchanged campaign must not start the shares at all.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from harem_pipeline.cli import main
from tasks.build import run_shares
from tests.helpers.campaign import break_run, make_campaign, outputs


def _tasks(*runs: str) -> list[SimpleNamespace]:
    """Tasks of the named runs (``m-ceiling``: the ceiling run of ``m``)."""
    return [
        SimpleNamespace(
            run_name=run,
            n=n,
            run_spec=SimpleNamespace(
                ceiling_of=run.removesuffix("-ceiling") if "-" in run else None
            ),
        )
        for n, run in enumerate(runs)
    ]


def test_runs_are_dealt_whole_in_turn_and_no_share_is_empty() -> None:
    tasks = _tasks("a", "b", "a", "c", "b", "d", "e")
    shares = run_shares(tasks, 2)
    assert [[(t.run_name, t.n) for t in share] for share in shares] == [
        [("a", 0), ("a", 2), ("c", 3), ("e", 6)],
        [("b", 1), ("b", 4), ("d", 5)],
    ]
    assert len(run_shares(_tasks("a", "a"), 4)) == 1
    # a ceiling run is built with its model, whose import it reads
    shares = run_shares(_tasks("a", "a-ceiling", "b", "a"), 2)
    assert [[t.run_name for t in share] for share in shares] == [["a", "a-ceiling", "a"], ["b"]]
    assert run_shares([], 2) == []


def test_shares_write_what_one_worker_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = make_campaign(tmp_path / "one", documents=3)
    two = make_campaign(tmp_path / "two", documents=3)
    assert main(["--quiet", "run", "--config", str(one), "--workers", "1"]) == 0
    assert "built in a process of its own" not in capsys.readouterr().out
    assert main(["--quiet", "run", "--verbose", "--config", str(two), "--workers", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("A share of the runs, built in a process of its own:") == 2
    assert "Align(" in printed  # each share's own Luigi summary says what ran there
    mine = outputs(two.parent / "out")
    assert mine == {
        name: data.replace(str(one.parent).encode(), str(two.parent).encode())
        for name, data in outputs(one.parent / "out").items()
    }
    assert main(["--quiet", "run", "--config", str(two), "--workers", "2"]) == 0
    assert "built in a process of its own" not in capsys.readouterr().out  # complete: no shares


def test_a_failed_run_in_a_share_leaves_the_others_a_summary_marked_incomplete(
    tmp_path: Path,
) -> None:
    campaign = make_campaign(tmp_path, documents=3)
    folder = campaign.parent
    break_run(folder / "runs" / "weak.txt")
    assert main(["--quiet", "run", "--config", str(campaign), "--workers", "2"]) == 1
    data = json.loads((folder / "out" / "summary.json").read_text(encoding="utf-8"))
    assert data["incomplete"] == ["weak"]
    strong = [r for r in data["reports"] if r["run"] == "strong"]
    assert strong and all(r["identification"] for r in strong)
    (folder / "runs" / "weak.txt").unlink()
    shutil.copy(folder / "runs" / "strong.txt", folder / "runs" / "weak.txt")
    assert main(["--quiet", "run", "--config", str(campaign), "--workers", "2"]) == 0
    assert "incomplete" not in json.loads((folder / "out" / "summary.json").read_text("utf-8"))
