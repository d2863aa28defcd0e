"""The campaign is checked whole before any task runs, by ``harem run`` and by ``luigi``.

``pipeline.yaml`` itself (tests/test_config.py) and the campaign against its
collection: a subset whose variant or genre names no document of it is
refused with the valid names.  Either command prints one line and runs
nothing: ``harem run`` exits 2, the ``luigi`` command its
``unhandled_exception`` code (40), with no traceback.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import tasks
from harem_pipeline.cli import main
from tests.helpers.campaign import luigi_command, make_campaign
from tests.helpers.paths import DATA


def replace_line(config: Path, key: str, line: str) -> None:
    text = config.read_text(encoding="utf-8").splitlines()
    kept = [old for old in text if not old.startswith(f"{key}:")]
    config.write_text("\n".join([*kept, line]) + "\n", encoding="utf-8")


def test_luigi_command_refuses_a_bad_pipeline_yaml_in_one_line(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2)
    replace_line(config, "workers", "workers: 0")
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=tmp_path)
    assert result.returncode == tasks.RETCODES["unhandled_exception"], result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "pipeline.yaml" in line]
    assert errors == [f"ERROR: {config.name}: workers: expected at least 1, found 0"]
    assert not (tmp_path / "out").exists()


def test_luigi_command_refuses_an_unknown_genre_before_running(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2)
    replace_line(config, "subsets", "subsets: [total, noticia]")
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=tmp_path)
    assert result.returncode == tasks.RETCODES["unhandled_exception"], result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert "subsets[1]: expected a genre of the documents (" in result.stderr
    assert not (tmp_path / "out").exists()


def test_harem_run_refuses_jornalistico_on_the_second_harem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("SegundoHaremReRelEM_t1.xml.gz", "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"):
        shutil.copy(DATA / "second-harem" / name, tmp_path)
    shutil.copy(DATA / "lampada2" / "colSegundoHAREM-meta.xml.gz", tmp_path)
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        "collection: SegundoHaremReRelEM_t1.xml.gz\n"
        "collection_meta: colSegundoHAREM-meta.xml.gz\n"
        "runs: [ParticipacaoSegundoHaremReRelEM_t1.xml.gz]\n"
        "output: out\nsubsets: [total, pt, jornalistico]\n",
        encoding="utf-8",
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "pipeline.yaml: subsets[2]: expected a genre of the documents (noticia 45," in err
    assert "found 'jornalistico'" in err
    assert not (tmp_path / "out").exists()


def test_harem_run_refuses_a_subset_of_no_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path, documents=2)  # two PT Web documents
    replace_line(config, "subsets", "subsets: [total, pt.literario]")
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "subsets[1]: expected " in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_harem_run_refuses_a_key_given_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path, documents=2)
    config.write_text(config.read_text(encoding="utf-8") + "output: elsewhere\n", "utf-8")
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "pipeline.yaml: output: given twice, on lines 3 and 8" in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("veils: [total, cenario2]", "veils[1] (cenario2)"),
        ("veils: official", "veils[1] (cenario5)"),
        ('veil: "LOCAL(FISICO)"', "veil"),
    ],
)
def test_harem_run_refuses_a_veil_the_first_harem_grid_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, key: str
) -> None:
    """The 2005 grid of a First HAREM collection has no LOCAL(FISICO): the official
    grid's cenario2 and cenario5 cannot be read there, which only the collection says."""
    config = make_campaign(tmp_path, documents=2)
    replace_line(config, line.split(":")[0], line)
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"pipeline.yaml: {key}: expected a veil of the 2005 grid of a First HAREM" in err
    assert "found unknown type of LOCAL 'FISICO'" in err
    assert not (tmp_path / "out").exists()


def test_luigi_command_refuses_a_grid_that_is_not_a_grid(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2)
    replace_line(config, "grid", "grid: cd.txt")  # found only by Emir, after everything else
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=tmp_path)
    assert result.returncode == tasks.RETCODES["unhandled_exception"], result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "pipeline.yaml" in line]
    assert len(errors) == 1
    assert errors[0].startswith("ERROR: pipeline.yaml: grid: not a category grid: ")
    assert not (tmp_path / "out").exists()


def test_harem_run_refuses_a_fifo_as_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path, documents=2)
    os.mkfifo(tmp_path / "runs" / "pipe.txt")
    assert main(["run", "--config", str(config)]) == 2  # not blocked reading the FIFO
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "runs[0]: 'runs/*.txt' matches a FIFO (named pipe): runs/pipe.txt" in err
    assert not (tmp_path / "out").exists()
