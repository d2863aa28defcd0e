"""What ``harem run`` and the ``luigi`` command print: progress on a terminal, the two paths
last, Luigi's summaries only when asked for, and no Luigi debug log before a one-line error."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import luigi
import pytest

from harem_pipeline.cli import main
from tasks import progress
from tests.helpers.campaign import break_run, luigi_command, make_campaign

HAREM = [sys.executable, "-m", "harem_pipeline"]


def test_harem_run_ends_with_the_two_paths_and_no_luigi_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path, documents=2)
    assert main(["run", "--config", str(config)]) == 0
    captured = capsys.readouterr()
    out = tmp_path / "out"
    assert captured.out.splitlines() == [
        f"Summary: {out / 'summary.md'}",
        f"Report:  {out / 'report.html'}",
    ]
    # standard error is no terminal here: no progress line either
    assert "stages" not in captured.err and "Luigi Execution Summary" not in captured.err


def test_harem_run_verbose_adds_luigi_summaries_before_the_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path, documents=2)
    assert main(["run", "--verbose", "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "===== Luigi Execution Summary =====" in lines
    assert any(" Align(" in line for line in lines), lines
    assert lines[-2].startswith("Summary: ") and lines[-1].startswith("Report:  ")


def read_all(fd: int, process: subprocess.Popen[bytes]) -> bytes:
    """Everything written to the terminal ``fd`` until ``process`` ends."""
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    return b"".join(chunks)


def run_on_a_terminal(config: Path) -> tuple[int, str, str]:
    """``harem run`` with its standard error on a pseudo-terminal: the exit status, what the
    terminal got, and standard output."""
    master, slave = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "HAREM_QUIET"}
    environment["TERM"] = "xterm"
    process = subprocess.Popen(
        [*HAREM, "run", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=slave,
        env=environment,
    )
    os.close(slave)
    terminal = read_all(master, process).decode("ascii")
    stdout = process.stdout.read().decode() if process.stdout else ""
    status = process.wait(timeout=300)
    os.close(master)
    return status, terminal, stdout


def test_on_a_terminal_harem_run_shows_its_progress_line(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2, extra="workers: 2\n")
    (tmp_path / "runs" / "third.txt").write_bytes((tmp_path / "runs" / "weak.txt").read_bytes())
    status, terminal, stdout = run_on_a_terminal(config)
    assert status == 0
    # 3 runs x 14 stages (total subset, absolute scenario, the alignment pages), then the
    # summary and report; the runs' chains were built in two processes, the rest by Luigi's
    # worker
    assert "harem run: 0/44 stages, 0/3 runs complete" in terminal
    final = terminal.rsplit(progress.CLEAR, 1)[1]
    assert final.startswith("harem run: 44/44 stages, 3/3 runs complete (done in ")
    assert final.endswith("\n")
    counts = [line.split(" stages")[0] for line in terminal.split(progress.CLEAR) if line]
    done = [int(count.split(": ")[1].split("/")[0]) for count in counts]
    assert done == sorted(done)  # never counts back, whichever process draws
    assert stdout.splitlines()[-1] == f"Report:  {tmp_path / 'out' / 'report.html'}"


def test_on_a_terminal_a_failure_gets_a_line_of_its_own(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2)
    break_run(tmp_path / "runs" / "weak.txt")
    status, terminal, stdout = run_on_a_terminal(config)
    assert status == 1
    # the progress line is erased before Luigi's one line, not written over by it
    errors = [part for part in terminal.split(progress.CLEAR) if "ERROR: " in part]
    assert len(errors) == 1 and errors[0].startswith("ERROR: "), terminal
    assert "weak.txt, line " in errors[0]
    final = terminal.rsplit(progress.CLEAR, 1)[1]
    assert final.startswith("harem run: 14/30 stages, 1/2 runs complete (stopped after ")
    assert stdout.splitlines()[-2].startswith("Incomplete summary: ")


def test_the_progress_line_fits_its_terminal() -> None:
    assert progress.progress_line(3, 41, 0, 3, "Ida2ID weak total") == (
        "harem run: 3/41 stages, 0/3 runs complete (Ida2ID weak total)"
    )
    assert progress.progress_line(0, 41, 0, 3) == "harem run: 0/41 stages, 0/3 runs complete"
    cut = progress.progress_line(3, 41, 0, 3, "Ida2ID " + "x" * 100, width=50)
    assert len(cut) == 50 and cut.endswith("...")


def test_the_progress_counts_each_stage_once_and_each_run_when_whole(tmp_path: Path) -> None:
    import io

    from tasks.pipeline import FullEvaluation

    config = make_campaign(tmp_path, documents=2)
    luigi.task_register.Register.clear_instance_cache()
    root = FullEvaluation(config=str(config))
    tasks = progress.campaign_tasks(root)
    assert len(tasks) == 2 * 14 + 2  # two runs' chains, the summary and the report
    stream = io.StringIO()
    counter = progress.Progress.of(tasks, stream)
    strong = [t for t in tasks if getattr(t, "run_name", None) == "strong"]
    for task in strong[:-1]:
        counter.mark(task)
        counter.mark(task)  # found complete by one process, run by another: counted once
    assert counter.counts() == (len(strong) - 1, 0)
    counter.mark(strong[-1])
    assert counter.counts() == (len(strong), 1)
    last = progress.task_label(strong[-1])
    assert stream.getvalue().endswith(f"harem run: 14/30 stages, 1/2 runs complete ({last})")


def test_no_progress_line_off_a_terminal() -> None:
    import io

    assert not progress.is_terminal(io.StringIO())
    assert not progress.is_terminal(object())


def test_a_failing_luigi_command_prints_its_one_line_without_luigi_debug_log(
    tmp_path: Path,
) -> None:
    config = make_campaign(tmp_path, documents=2)
    break_run(tmp_path / "runs" / "weak.txt")
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=config.parent)
    assert result.returncode == 30
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    assert lines[0].startswith("ERROR: ") and "weak.txt, line " in lines[0]
    # Luigi's own logging is one option away
    shown = luigi_command(
        "FullEvaluation", "--local-scheduler", "--log-level", "DEBUG", cwd=config.parent
    )
    assert shown.returncode == 30 and "DEBUG: " in shown.stderr


def test_every_command_is_quiet_on_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One convention: a command that succeeds prints nothing (warnings and the counts of
    import/export aside), the record commands and import/export alike."""
    make_campaign(tmp_path, documents=2)
    cd, run = tmp_path / "cd.txt", tmp_path / "runs" / "strong.txt"
    base = tmp_path / "runs" / "strong.txt.alinhado.avalida"
    commands = [
        ["align", "--cd", str(cd), "--run", str(run)],
        ["avalida", f"{run}.alinhado"],
        ["veus", str(base), "--style", "harem"],
        ["altida", f"{base}.total"],
        ["ida2id", f"{base}.total.altida", "--bootstrap", "0"],
        ["vizir", f"{base}.total", "-abs"],
        ["altmor", f"{base}.total.vizir"],
        ["ida2mor", f"{base}.total.altmor", "--bootstrap", "0"],
        ["alts", f"{base}.total"],
        ["emir", f"{base}.total.alts"],
        ["altsem", f"{base}.total.alts.emir"],
        ["ida", f"{base}.total.alts.emir"],
        ["export", str(cd), "--format", "jsonl", "-o", str(tmp_path / "cd.jsonl")],
        ["import", str(tmp_path / "cd.jsonl"), "--format", "jsonl", "--cd", str(cd),
         "-o", str(tmp_path / "back.txt")],
    ]  # fmt: skip
    for command in commands:
        assert main(command) == 0, command
        captured = capsys.readouterr()
        assert captured.out == "", command
        if command[0] in ("export", "import"):
            # their counts, one line, and no "written to"
            assert len(captured.err.splitlines()) == 1 and "written to" not in captured.err
        else:
            assert captured.err == "", (command, captured.err)
