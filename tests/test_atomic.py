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


# ---------------------------------------------------------------------------
# Targets that are not regular files are written in place, never replaced


def test_a_fifo_is_written_through_not_replaced_by_a_file(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_text_atomic(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the pipe
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary left


def test_a_symlink_is_kept_and_its_target_replaced_atomically(tmp_path: Path) -> None:
    real = tmp_path / "real" / "report.txt"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in real.parent.iterdir()) == ["report.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real"]


def test_a_dangling_symlink_gets_its_target_made(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "made.txt")
    write_text_atomic(link, "made\n")
    assert link.is_symlink()
    assert (tmp_path / "made.txt").read_text(encoding="utf-8") == "made\n"


def test_a_failed_write_through_a_symlink_keeps_the_old_target(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(RuntimeError), atomic_write(link) as handle:
        handle.write("half")
        raise RuntimeError("killed")
    assert real.read_text(encoding="utf-8") == "old\n" and link.is_symlink()


def test_dash_means_standard_output(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    write_text_atomic("-", "Rússia\n", encoding="iso8859-1")
    assert capfdbinary.readouterr().out == "Rússia\n".encode("iso8859-1")


def test_harem_o_dash_and_dev_stdout_print_the_report(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from harem_pipeline.cli import main

    source = tmp_path / "r.alinhado"
    source.write_text("DOC d\nEOD\n", encoding="utf-8")
    for target in ("-", "/dev/stdout"):
        assert main(["avalida", str(source), "-o", target]) == 0
        assert "DOC d" in capfd.readouterr().out
    assert os.path.exists("/dev/stdout") and not Path("-").exists()
