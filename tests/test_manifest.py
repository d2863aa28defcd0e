"""Completion by content: what makes a stage result complete or stale."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import harem_pipeline.pipeline.manifest as manifest_module
from harem_pipeline.pipeline.manifest import (
    check_complete,
    manifest_path,
    read_manifest,
    snapshot_inputs,
    write_manifest,
)


@pytest.fixture()
def stage(tmp_path: Path) -> tuple[Path, Path, Path]:
    source = tmp_path / "run.txt"
    source.write_text("<EM>Lisboa</EM>\n", encoding="utf-8")
    output = tmp_path / "run.alinhado"
    output.write_text("record\n", encoding="utf-8")
    inputs = snapshot_inputs(output, [source])
    write_manifest(output, "align", {"style": "harem"}, inputs, [output], signature="sig")
    return tmp_path, source, output


def test_fresh_manifest_is_complete(stage: tuple[Path, Path, Path]) -> None:
    _, source, output = stage
    assert manifest_path(output).name == "run.alinhado.manifest.json"
    assert check_complete(output, "align", {"style": "harem"}, [source]) is not None
    assert read_manifest(output).signature == "sig"


def test_touch_without_change_stays_complete(stage: tuple[Path, Path, Path]) -> None:
    _, source, output = stage
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert check_complete(output, "align", {"style": "harem"}, [source]) is not None


def test_content_change_is_stale_even_with_same_size_and_mtime(
    stage: tuple[Path, Path, Path],
) -> None:
    _, source, output = stage
    stat = source.stat()
    source.write_text("<EM>Lisbon</EM>\n", encoding="utf-8")  # same length
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None


def test_parameter_stage_or_inputs_change_is_stale(stage: tuple[Path, Path, Path]) -> None:
    tmp_path, source, output = stage
    assert check_complete(output, "align", {"style": "muc"}, [source]) is None
    assert check_complete(output, "avalida", {"style": "harem"}, [source]) is None
    other = tmp_path / "other.txt"
    other.write_text("x", encoding="utf-8")
    assert check_complete(output, "align", {"style": "harem"}, [source, other]) is None


def test_missing_output_or_manifest_is_stale(stage: tuple[Path, Path, Path]) -> None:
    _, source, output = stage
    output.unlink()
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None
    output.write_text("record\n", encoding="utf-8")
    manifest_path(output).unlink()
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None


def test_new_scoring_version_is_stale(
    stage: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, source, output = stage
    monkeypatch.setattr(manifest_module, "SCORING_VERSION", "999")
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None


def test_corrupt_manifest_is_stale(stage: tuple[Path, Path, Path]) -> None:
    _, source, output = stage
    manifest_path(output).write_text("{not json", encoding="utf-8")
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None


def test_edited_or_truncated_output_is_stale(stage: tuple[Path, Path, Path]) -> None:
    _, source, output = stage
    stat = output.stat()
    output.write_text("recorx\n", encoding="utf-8")  # same size
    os.utime(output, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None
    output.write_text("rec", encoding="utf-8")
    assert check_complete(output, "align", {"style": "harem"}, [source]) is None


def test_input_changed_while_the_stage_ran_is_stale(tmp_path: Path) -> None:
    source = tmp_path / "run.txt"
    source.write_text("before\n", encoding="utf-8")
    output = tmp_path / "run.alinhado"
    inputs = snapshot_inputs(output, [source])  # taken before the stage runs
    source.write_text("during\n", encoding="utf-8")  # rewritten meanwhile
    output.write_text("record\n", encoding="utf-8")
    write_manifest(output, "align", {}, inputs, [output])
    assert check_complete(output, "align", {}, [source]) is None
