"""The Luigi pipeline: reruns only on real change, exit status, crash safety.

A small campaign (six First HAREM documents, two simulated runs,
``tests/helpers/campaign.py``) keeps each build to a second or two.  It is
built once per module; a test that changes a file works on its own copy.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import tasks
from harem_pipeline.cli import main
from tests.helpers.campaign import (
    build,
    copy_campaign,
    luigi_command,
    make_campaign,
    outputs,
)

CHAIN = {"Align", "Avalida", "Veus", "AltinaID", "Ida2ID", "Vizir", "AltinaMor", "Ida2Mor"}
CHAIN |= {"Alts", "Emir", "AltSem", "Ida", "Browse"}
STAGES = 14
"""Tasks per run in the test campaign (one subset, the absolute scenario): the Ida twice,
and the alignment pages."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The campaign, built once; read-only (tests that change files take ``campaign``)."""
    config = make_campaign(tmp_path_factory.mktemp("campaign"))
    first = build(config)
    # 2 runs × 13 chain stages, plus the summary and the report: identification (Align,
    # Avalida, Veus, AltinaID, Ida2ID), morphology (Vizir, AltinaMor, Ida2Mor) and semantic
    # classification (Alts, Emir, AltSem, Ida strict and relaxed) for the one subset and
    # the absolute scenario of the test campaign.
    assert sorted(first).count(("Align", "strong")) == 1
    assert len(first) == 2 * STAGES + 2
    before = outputs(config.parent)
    yield config
    assert outputs(config.parent) == before, "a test changed the shared campaign"


@pytest.fixture()
def campaign(built: Path, tmp_path: Path) -> Path:
    """This test's own copy of the built campaign, complete as the original."""
    config = copy_campaign(built, tmp_path / "campaign")
    assert build(config) == []
    return config


def test_touching_a_file_without_changing_it_runs_no_task(campaign: Path) -> None:
    for path in (campaign.parent / "cd.txt", campaign.parent / "runs" / "strong.txt"):
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000_000))
    assert build(campaign) == []


def test_changing_one_run_reruns_its_chain_and_the_summary_only(campaign: Path) -> None:
    run = campaign.parent / "runs" / "weak.txt"
    before = run.read_bytes()
    run.write_bytes(before.replace(b'MORF="M,S"', b'MORF="F,S"', 1))
    assert run.read_bytes() != before
    ran = build(campaign)
    assert {family for family, name in ran if name == "weak"} == CHAIN
    assert all(name in ("weak", None) for _, name in ran)
    assert {family for family, name in ran if name is None} == {"Summary", "Report"}
    assert len(ran) == STAGES + 2


def test_changing_a_parameter_reruns_only_the_stages_it_reaches(campaign: Path) -> None:
    text = campaign.read_text(encoding="utf-8")
    campaign.write_text(text.replace("bootstrap: 20", "bootstrap: 30"), encoding="utf-8")
    ran = build(campaign)
    reports = {"Ida2ID", "Ida2Mor", "Ida", "Summary", "Report"}
    assert {family for family, _ in ran} == reports
    assert len(ran) == 2 * 4 + 2  # per run: Ida2ID, Ida2Mor, the strict and the relaxed Ida
    # Back to the old value: the reports are recomputed once more, nothing else.
    campaign.write_text(text, encoding="utf-8")
    assert {family for family, _ in build(campaign)} == reports


def test_drawing_the_charts_reruns_the_summary_and_report_only(campaign: Path) -> None:
    text = campaign.read_text(encoding="utf-8")
    report = campaign.parent / "out" / "report.html"
    assert "<svg" not in report.read_text(encoding="utf-8")
    campaign.write_text(text.replace("charts: false", "charts: true"), encoding="utf-8")
    assert sorted(family for family, _ in build(campaign)) == ["Report", "Summary"]
    assert "<svg" in report.read_text(encoding="utf-8")
    summary = json.loads((campaign.parent / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["campaign"]["charts"] is True


def test_the_alignment_pages_rerun_when_the_emir_does_and_go_with_browse_false(
    campaign: Path,
) -> None:
    out = campaign.parent / "out"
    pages = out / "strong" / "browse" / "index.html"
    manifest = json.loads((out / "strong" / "browse.manifest.json").read_text(encoding="utf-8"))
    assert manifest["stage"] == "browse"
    assert sorted(manifest["inputs"]) == [
        "$output/strong/strong.alinhado.avalida",
        "$output/strong/strong.alinhado.avalida.total.alts.emir",
        "cd.txt",
        "runs/strong.txt",
    ]
    assert "$output/strong/browse/index.html" in manifest["outputs"]
    assert len([k for k in manifest["outputs"] if "/browse/docs/" in k]) == 6  # a page each
    text = campaign.read_text(encoding="utf-8")
    # Other Emir weights: new .emir files, so the pages (their CSC) are written again.
    campaign.write_text(text + 'weights: "1;1;0.5;0.5"\n', encoding="utf-8")
    ran = build(campaign)
    assert sorted(name for family, name in ran if family == "Browse") == ["strong", "weak"]
    # Without the pages: the summary and the report only, which no longer link them.
    campaign.write_text(text + "browse: false\n", encoding="utf-8")
    ran = build(campaign)
    assert "Browse" not in {family for family, _ in ran} and "Emir" in {f for f, _ in ran}
    assert "browse/index.html" not in (out / "report.html").read_text(encoding="utf-8")
    assert (
        json.loads((out / "summary.json").read_text(encoding="utf-8"))["campaign"]["browse"] == []
    )
    # Back on: the pages of the same inputs are complete; the report links them again.
    campaign.write_text(text, encoding="utf-8")
    ran = build(campaign)
    assert "Browse" not in {family for family, _ in ran}
    assert "strong/browse/index.html" in (out / "report.html").read_text(encoding="utf-8")
    # An edited page is rebuilt (the manifest pins every page), and what follows it.
    page = out / "strong" / "browse" / "docs" / "00000.html"
    page.write_text("edited", encoding="utf-8")
    assert build(campaign) == [("Browse", "strong"), ("Summary", None), ("Report", None)]
    assert page.read_text(encoding="utf-8") != "edited" and pages.is_file()


def test_other_page_code_redraws_the_alignment_pages_only(
    campaign: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harem_pipeline.pipeline import browse

    manifest = campaign.parent / "out" / "weak" / "browse.manifest.json"
    drawn = json.loads(manifest.read_text(encoding="utf-8"))["params"]
    assert drawn == {"pages": browse.pages_version()}
    monkeypatch.setattr(browse, "pages_version", lambda: "other")
    ran = build(campaign)
    assert sorted(family for family, _ in ran) == ["Browse", "Browse", "Report", "Summary"]


def test_changing_the_collection_reruns_everything(campaign: Path) -> None:
    cd = campaign.parent / "cd.txt"
    data = cd.read_bytes()
    cd.write_bytes(data + b"\r\n")  # same documents, different bytes
    ran = build(campaign)
    assert len(ran) == 2 * STAGES + 2
    cd.write_bytes(data)
    assert len(build(campaign)) == 2 * STAGES + 2  # and back


def test_summary_and_reports_carry_real_numbers(built: Path) -> None:
    out = built.parent / "out"
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "| strong | total | absolute |" in summary and "| weak | total | absolute |" in summary
    report = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="leaderboard"' in report and "Simulated runs: strong, weak." in report
    ida2id = out / "strong" / "strong.alinhado.avalida.total.ida2id"
    assert ida2id.read_bytes().startswith(b"Total na CD: ")


def test_signature_names_everything_behind_the_numbers(built: Path) -> None:
    import json

    report = built.parent / "out" / "weak" / "weak.alinhado.avalida.total.abs.ida2mor.json"
    signature = json.loads(report.read_text(encoding="utf-8"))["signature"]
    assert signature.startswith("harem:") and "|cd:" in signature and "|run:" in signature
    # the test campaign: veil '*', bootstrap 20 (tests/helpers/campaign.py), the default seed
    assert signature.endswith(
        "|subset:total|scenario:abs|style:harem|veil:*|alt:best|boot:20|seed:12345"
    )


HAREM = [sys.executable, "-m", "harem_pipeline"]


def harem(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HAREM, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture()
def broken_campaign(tmp_path: Path) -> Path:
    config = make_campaign(tmp_path, documents=3)
    run = tmp_path / "runs" / "weak.txt"
    text = run.read_bytes()
    # An entity inside an entity: a user's mistake the reader reports.
    start = text.index(b"<PESSOA")
    run.write_bytes(text[:start] + b'<LOCAL TIPO="X">' + text[start:])
    return config


def test_broken_run_gives_non_zero_exit_and_keeps_other_outputs(broken_campaign: Path) -> None:
    folder = broken_campaign.parent
    result = harem("run", "--quiet", cwd=folder)
    assert result.returncode == 1, result.stdout + result.stderr
    # Luigi's one line names the failed task and what was wrong (no summary unless --verbose)
    assert "failed    Align(" in result.stderr and "weak.txt, line " in result.stderr
    assert "Traceback" not in result.stderr
    # The other run's chain ran to the end and its outputs are intact.
    assert (folder / "out" / "strong" / "strong.alinhado.avalida.total.ida2id").is_file()
    assert not (folder / "out" / "weak" / "weak.alinhado").exists()
    # The summary is there for the other run, marked incomplete (tests/test_campaign_outcomes).
    assert "incomplete" in json.loads((folder / "out" / "summary.json").read_text("utf-8"))


def test_luigi_command_exits_non_zero_on_a_failed_task(broken_campaign: Path) -> None:
    folder = broken_campaign.parent
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=folder)
    assert result.returncode == tasks.RETCODES["task_failed"], result.stderr[-3000:]
    # The user's mistake is one line in the log, not a traceback.
    assert "expected" in result.stderr and "Traceback" not in result.stderr


def test_luigi_command_runs_from_the_campaign_folder(tmp_path: Path) -> None:
    make_campaign(tmp_path, documents=2)
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "out" / "report.html").is_file()


def test_bad_pipeline_yaml_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path, documents=2, extra="colour: red\n")
    assert main(["run", "--config", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "colour: unknown key" in err


def test_killed_run_resumes_to_identical_outputs(tmp_path: Path) -> None:
    calm = make_campaign(tmp_path / "calm", documents=12)
    killed = make_campaign(tmp_path / "killed", documents=12)
    build(calm)  # the undisturbed run, in this process
    process = subprocess.Popen(
        [*HAREM, "run", "--quiet"],
        cwd=killed.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    out = killed.parent / "out"
    while time.monotonic() < deadline and len(list(out.rglob("*.manifest.json"))) < 4:
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (out / "report.html").exists(), "the run finished before it could be killed"
    assert harem("run", "--quiet", cwd=killed.parent).returncode == 0
    assert outputs(out) == outputs(calm.parent / "out")
    assert not list(out.rglob("*.tmp"))
