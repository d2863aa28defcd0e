"""A small campaign on disk, and building it with Luigi in this process.

Six First HAREM documents and two simulated runs keep a build to a second
or two.  Which tasks ran is read from Luigi's own START events.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import luigi

import tasks
from harem_pipeline.formats.harem_xml import format_collection, read_collection
from harem_pipeline.tools.simulate import render_run
from tests.helpers.paths import DATA
from tests.helpers.shipped import shipped_collection

STARTED: list[tuple[str, str | None]] = []


@luigi.Task.event_handler(luigi.Event.START)
def _record_start(task: luigi.Task) -> None:
    STARTED.append((task.get_task_family(), getattr(task, "run_name", None)))


def make_campaign(folder: Path, documents: int = 6, extra: str = "", charts: bool = False) -> Path:
    """A CD of the first documents of the First HAREM collection and two simulated runs.

    Without ``charts`` (for tests of which tasks run and what they say, not of the charts)
    the report is drawn without them: matplotlib is most of a small campaign's build.
    """
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    for name, data in campaign_files(documents):
        (folder / name).write_bytes(data)
    config = folder / "pipeline.yaml"
    config.write_text(
        "collection: cd.txt\nruns: [runs/*.txt]\noutput: out\nsubsets: [total]\n"
        f"scenarios: [absolute]\nbootstrap: 20\ncharts: {str(charts).lower()}\n" + extra,
        encoding="utf-8",
    )
    return config


@functools.cache
def campaign_files(documents: int) -> tuple[tuple[str, bytes], ...]:
    """The CD and runs of :func:`make_campaign` as ``(name, bytes)``, made once per process.

    They depend on ``documents`` alone; the bytes are immutable, so each
    campaign that a test then changes on disk starts from the same files.
    """
    full = shipped_collection(DATA / "first-harem" / "ColeccaoDouradaHAREM.txt")
    small = dataclasses.replace(full, documents=full.documents[:documents])
    cd_bytes = format_collection(small).encode(full.encoding)
    with tempfile.TemporaryDirectory() as folder:  # the runs are made from the CD as read
        (Path(folder) / "cd.txt").write_bytes(cd_bytes)
        cd = read_collection(Path(folder) / "cd.txt")
    files = [("cd.txt", cd_bytes)]
    for profile, seed in (("strong", 1), ("weak", 2)):
        text = render_run(cd, profile, seed, "cd.txt")
        files.append((f"runs/{profile}.txt", text.encode(cd.encoding)))
    return tuple(files)


def break_run(path: Path) -> None:
    """An entity inside an entity: a user's mistake the reader reports."""
    text = path.read_bytes()
    start = text.index(b"<PESSOA")
    path.write_bytes(text[:start] + b'<LOCAL TIPO="X">' + text[start:])


def build(config: Path, workers: int = 1) -> list[tuple[str, str | None]]:
    """Run FullEvaluation in this process; return the (task family, run) that started."""
    STARTED.clear()
    # Task instances (and the campaign each has read) are cached per process by
    # Luigi; a new build must see the files as they are now.
    luigi.task_register.Register.clear_instance_cache()
    result = luigi.build(
        [tasks.FullEvaluation(config=str(config))],
        local_scheduler=True,
        workers=workers,
        detailed_summary=True,
        log_level="WARNING",
    )
    assert result.status.name.startswith("SUCCESS"), result.summary_text
    return [item for item in STARTED if item[0] != "FullEvaluation"]


def outputs(folder: Path) -> dict[str, bytes]:
    """Every output file's bytes, manifests left out (they hold paths and mtimes)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".manifest.json")
    }


def copy_campaign(built: Path, folder: Path) -> Path:
    """A copy of a built campaign (``built`` is its pipeline.yaml) in ``folder``, as
    ``cp -a`` makes it: links copied as links, file times kept.

    Manifests name files by their place in the campaign, not by absolute path,
    so the copy is as complete as the original: a build runs nothing.
    """
    shutil.copytree(built.parent, folder, symlinks=True)
    return folder / built.name


def luigi_command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The ``luigi`` command on the campaign of ``cwd``, in a process of its own."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import luigi.cmdline; luigi.cmdline.luigi_run()",
            "--module",
            "harem_pipeline",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
