"""The campaign manifest: an unchanged campaign recognised without checking each stage.

It may only ever say "complete" when checking every stage would say so too:
whatever file of a built campaign is deleted, edited, touched or rewritten,
and whatever setting changes, the fast answer is never "complete" where the
stage-by-stage answer is not, and a build afterwards reruns exactly what
the stage checks find stale (``tests/test_tasks.py`` counts those).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import luigi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tasks.base
from harem_pipeline.cli import main
from harem_pipeline.pipeline.manifest import CAMPAIGN_MANIFEST, campaign_manifest_matches
from tasks.base import campaign_of, campaign_places, campaign_stamps, reread_campaign
from tasks.pipeline import Report, campaign_settings
from tests.helpers.campaign import build, copy_campaign, make_campaign


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    config = make_campaign(tmp_path_factory.mktemp("campaign"), documents=3)
    build(config)
    yield config


def fresh_copy(built: Path, folder: Path) -> Path:
    """A copy of the built campaign whose campaign manifest is its own (one build writes it)."""
    config = copy_campaign(built, folder)
    assert build(config) == []
    assert fast_complete(config)
    return config


def fast_complete(config: Path) -> bool:
    """The campaign manifest's answer, for the campaign as it is now."""
    campaign = reread_campaign(str(config))
    return campaign_manifest_matches(
        campaign.output / CAMPAIGN_MANIFEST, campaign_settings(campaign), campaign_places(campaign)
    )


def slow_complete(config: Path) -> bool:
    """Every stage checked anew, as a build without the campaign manifest does."""
    luigi.task_register.Register.clear_instance_cache()
    reread_campaign(str(config))
    return campaign_stamps(Report(config=str(config))) is not None


def campaign_files(config: Path) -> list[Path]:
    return sorted(p for p in config.parent.rglob("*") if p.is_file())


def test_an_unchanged_rerun_checks_no_stage(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = fresh_copy(built, tmp_path / "c")
    checks = []
    original = tasks.base.check_complete
    monkeypatch.setattr(
        tasks.base, "check_complete", lambda *args: checks.append(args) or original(*args)
    )
    assert build(config) == []
    assert checks == []
    assert main(["--quiet", "run", "--config", str(config)]) == 0
    assert checks == []


def test_the_manifest_records_every_file_the_stage_checks_read(built: Path) -> None:
    recorded = json.loads((built.parent / "out" / CAMPAIGN_MANIFEST).read_text("utf-8"))
    files = set(recorded["files"])  # named by their place in the campaign
    out = built.parent / "out"
    on_disk = {
        f"$output/{p.relative_to(out).as_posix()}"
        for p in campaign_files(built)
        if p.is_relative_to(out) and p != out / CAMPAIGN_MANIFEST
    }
    assert on_disk <= files
    assert {f"runs/{p.name}" for p in (built.parent / "runs").iterdir()} <= files
    assert "cd.txt" in files
    # names a stage may write but did not are recorded as absent
    assert None in recorded["files"].values()


def test_a_deleted_output_reruns_its_stage_and_what_follows(built: Path, tmp_path: Path) -> None:
    config = fresh_copy(built, tmp_path / "c")
    (config.parent / "out" / "weak" / "weak.alinhado.avalida.total.altida").unlink()
    assert not fast_complete(config)
    ran = build(config)
    assert sorted(family for family, _ in ran) == ["AltinaID", "Ida2ID", "Report", "Summary"]
    assert fast_complete(config)


def test_a_changed_setting_is_not_the_recorded_campaign(built: Path, tmp_path: Path) -> None:
    config = fresh_copy(built, tmp_path / "c")
    text = config.read_text(encoding="utf-8")
    config.write_text(text + "# a comment changes no setting\n", encoding="utf-8")
    assert fast_complete(config)
    config.write_text(text.replace("bootstrap: 20", "bootstrap: 21"), encoding="utf-8")
    assert not fast_complete(config)
    assert not slow_complete(config)
    assert {family for family, _ in build(config)} == {
        "Ida2ID",
        "Ida2Mor",
        "Ida",
        "Summary",
        "Report",
    }
    assert fast_complete(config)


def test_a_failed_build_leaves_no_campaign_manifest(built: Path, tmp_path: Path) -> None:
    config = fresh_copy(built, tmp_path / "c")
    run = config.parent / "runs" / "weak.txt"
    text = run.read_bytes()
    start = text.index(b"<PESSOA")
    run.write_bytes(text[:start] + b'<LOCAL TIPO="X">' + text[start:])
    assert main(["--quiet", "run", "--config", str(config)]) == 1
    assert not (config.parent / "out" / CAMPAIGN_MANIFEST).exists()


def test_new_code_is_not_the_recorded_campaign(built: Path, tmp_path: Path) -> None:
    config = fresh_copy(built, tmp_path / "c")
    settings_now = campaign_settings(campaign_of(str(config)))
    source = next(iter(settings_now["code"]))
    settings_now["code"][source] = [1, 2]  # as if that module had been edited
    record = config.parent / "out" / CAMPAIGN_MANIFEST
    assert campaign_manifest_matches(
        record,
        campaign_settings(campaign_of(str(config))),
        campaign_places(campaign_of(str(config))),
    )
    assert not campaign_manifest_matches(
        record, settings_now, campaign_places(campaign_of(str(config)))
    )


MUTATIONS = ("delete", "append", "same size", "touch", "same bytes and time")


def mutate(path: Path, how: str) -> None:
    stat = path.stat()
    data = path.read_bytes()
    if how == "delete":
        path.unlink()
    elif how == "append":
        path.write_bytes(data + b"\n")
    elif how == "same size":  # an edit that keeps the size, with a new mtime
        path.write_bytes(bytes([data[0] ^ 1]) + data[1:] if data else b"")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    elif how == "touch":
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    else:  # rewritten with the same bytes and the same time: unchanged for every check
        path.write_bytes(data)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@settings(
    derandomize=True,
    deadline=None,
    max_examples=30,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(pick=st.integers(0, 10_000), how=st.sampled_from(MUTATIONS))
def test_the_fast_answer_never_says_complete_where_the_stages_do_not(
    built: Path, tmp_path: Path, pick: int, how: str
) -> None:
    config = fresh_copy(built, Path(tempfile.mkdtemp(dir=tmp_path)) / "c")
    files = [p for p in campaign_files(config) if p != config]
    if how in ("delete", "same size"):  # a run or collection that is no longer one
        files = [p for p in files if p.is_relative_to(config.parent / "out")]
    target = files[pick % len(files)]
    mutate(target, how)
    fast, slow = fast_complete(config), slow_complete(config)
    assert slow or not fast, f"{how} {target.relative_to(config.parent)}"
    if how == "same bytes and time" or target.name == CAMPAIGN_MANIFEST:
        assert slow
    elif how != "touch":  # a real change of a file some check reads
        assert not fast, f"{how} {target.relative_to(config.parent)}"
    build(config)
    assert fast_complete(config) and slow_complete(config)
