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


# ---------------------------------------------------------------------------
# Options checked before anything is read or written


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--workers", "-1"],
        ["run", "--workers", "0"],
        ["ida2id", "IN", "--bootstrap", "-1"],
        ["ida2mor", "IN", "-abs", "--bootstrap", "-1"],
        ["measures", "IN", "--format", "conll", "--json", "--bootstrap", "-1"],
        ["compare", "A", "B", "--bootstrap", "-1"],
        ["compare", "A", "B", "--seed", "-3"],
        ["ida2id", "IN", "--bootstrap", "many"],
    ],
)
def test_numbers_out_of_range_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harem {argv[0]}: error: --") and err.count("\n") == 1, err
    assert "expected a whole number, " in err


def _inputs(tmp_path) -> dict[str, str]:
    names = {}
    for name in ("in.txt", "cd.txt", "meta.xml"):
        (tmp_path / name).write_text("x", encoding="utf-8")
        names[name] = str(tmp_path / name)
    return names


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["align", "--cd", "{cd}", "--run", "{in}", "-o", "{in}"], "--run"),
        (["align", "--cd", "{cd}", "--run", "{in}", "-o", "{cd}"], "--cd"),
        (["avalida", "{in}", "-o", "{in}"], "input"),
        (["veus", "{in}", "--style", "harem", "-o", "{in}"], "input"),
        (["veus", "{in}", "--style", "harem", "--meta", "{meta}", "-o", "{meta}"], "--meta"),
        (["altida", "{in}", "-o", "{in}"], "input"),
        (["ida2id", "{in}", "-o", "{in}"], "input"),
        (["vizir", "{in}", "-abs", "-o", "{in}"], "input"),
        (["altmor", "{in}", "-o", "{in}"], "input"),
        (["ida2mor", "{in}", "-abs", "-o", "{in}"], "input"),
        (["measures", "{in}", "--format", "conll", "-o", "{in}"], "file"),
        (["measures", "--cd", "{cd}", "--run", "{in}", "-o", "{cd}"], "--cd"),
        (["simulate", "--cd", "{cd}", "--profile", "weak", "-o", "{cd}"], "--cd"),
        (["export", "{cd}", "--format", "conll", "-o", "{cd}"], "--cd"),
        (["import", "{in}", "--format", "conll", "--cd", "{cd}", "-o", "{in}"], "predictions"),
    ],
)
def test_an_output_that_is_an_input_is_refused(
    argv: list[str], named: str, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _inputs(tmp_path)
    argv = [
        a.format(**{"in": files["in.txt"], "cd": files["cd.txt"], "meta": files["meta.xml"]})
        for a in argv
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"expected a file other than the input ({named})" in err, err
    assert err.count("\n") == 1
    assert all((tmp_path / n).read_text(encoding="utf-8") == "x" for n in files)


LEAVING = """
import atexit, sys, threading
from harem_pipeline.cli import leave
atexit.register(lambda: print("exit handler", file=sys.stderr))
if sys.argv[1] == "thread":
    threading.Thread(target=threading.Event().wait, args=(0.3,)).start()
print("buffered", end="")  # no line end: still in the buffer at the end
leave(3)
"""


@pytest.mark.parametrize("other", ["none", "thread"])
def test_a_command_leaves_with_its_status_its_output_flushed_and_its_exit_handlers_run(
    other: str,
) -> None:
    """Without the interpreter's teardown (nothing else running) or with it (another
    thread alive): the same status, output and exit handlers."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", LEAVING, other], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "buffered", "exit handler\n")


def test_a_command_whose_output_cannot_be_flushed_exits_as_python_does() -> None:
    """A standard stream that cannot be flushed: the process exits as usual, with
    Python's own status for that (120), its exit handlers run."""
    import subprocess
    import sys

    broken = LEAVING.replace(
        "leave(3)",
        "class Broken:\n"
        "    def write(self, text): return len(text)\n"
        "    def flush(self): raise BrokenPipeError(32, 'Broken pipe')\n"
        "sys.stdout = Broken()\n"
        "leave(3)",
    )
    done = subprocess.run([sys.executable, "-c", broken, "none"], capture_output=True, timeout=60)
    assert done.returncode == 120
    assert b"exit handler" in done.stderr
