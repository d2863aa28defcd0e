"""Atomic writes: never a half file in place, and a killed writer's leftovers swept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harem_pipeline.text.atomic import atomic_write, remove_stale_temporaries, write_text_atomic


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "run.vizir"
    write_text_atomic(target, "old\n")
    with pytest.raises(RuntimeError), atomic_write(target) as handle:
        handle.write("half a fi")
        raise RuntimeError("killed")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.vizir"]


def test_text_is_written_as_given(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b.txt"
    write_text_atomic(target, "Rússia\r\n", encoding="iso8859-1")
    assert target.read_bytes() == "Rússia\r\n".encode("iso8859-1")


def test_stale_temporaries_of_one_target_only(tmp_path: Path) -> None:
    for name in (
        ".r.alinhado.avalida.total.abc123_x.tmp",  # a leftover of this target
        ".r.alinhado.avalida.total.abs.vizir.abc123_x.tmp",  # another file's
        ".r.alinhado.avalida.total.json.abc123_x.tmp",  # another file's
    ):
        (tmp_path / name).write_text("x", encoding="utf-8")
    assert remove_stale_temporaries(tmp_path / "r.alinhado.avalida.total") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".r.alinhado.avalida.total.abs.vizir.abc123_x.tmp",
        ".r.alinhado.avalida.total.json.abc123_x.tmp",
    ]


def test_outputs_get_the_usual_file_mode(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "r.ida2id", "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "r.ida2id").stat().st_mode) == 0o644
