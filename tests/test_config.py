"""pipeline.yaml validation: every mistake is one line naming the key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harem_pipeline.errors import ConfigError
from harem_pipeline.pipeline.config import Subset, load_campaign, parse_subset


@pytest.fixture()
def campaign_dir(tmp_path: Path) -> Path:
    (tmp_path / "cd.txt").write_text("cd", encoding="utf-8")
    (tmp_path / "runs").mkdir()
    for name in ("a", "b"):
        (tmp_path / "runs" / f"{name}.txt").write_text(name, encoding="utf-8")
    return tmp_path


def write(folder: Path, text: str) -> Path:
    path = folder / "pipeline.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_minimal_campaign_gets_the_defaults(campaign_dir: Path) -> None:
    campaign = load_campaign(
        write(campaign_dir, "collection: cd.txt\nruns: [runs/*.txt]\noutput: out\n")
    )
    assert campaign.collection == campaign_dir / "cd.txt"
    assert [r.name for r in campaign.runs] == ["a", "b"]
    assert campaign.output == campaign_dir / "out"
    assert campaign.subsets == (Subset("total"),)
    assert campaign.scenarios == ("absolute", "relative")
    assert campaign.style == "harem"
    assert campaign.workers == 1
    assert campaign.charts is True


def test_paths_are_relative_to_the_file_not_the_working_folder(
    campaign_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = write(campaign_dir, "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\n")
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    assert load_campaign(path).runs[0].path == campaign_dir / "runs" / "a.txt"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\ncolour: red\n",
            "colour: unknown key",
        ),
        ("runs: [runs/a.txt]\noutput: out\n", "collection: missing"),
        (
            "collection: nope.txt\nruns: [runs/a.txt]\noutput: out\n",
            "collection: no such file: nope.txt",
        ),
        ("collection: cd.txt\nruns: runs/a.txt\noutput: out\n", "runs: expected a list"),
        ("collection: cd.txt\nruns: [runs/z*.txt]\noutput: out\n", "runs[0]: no file matches"),
        (
            "collection: cd.txt\nruns: [{path: runs/a.txt, colour: 1}]\noutput: out\n",
            "runs[0].colour: unknown key",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nworkers: two\n",
            "workers: expected a whole number, found str",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nworkers: true\n",
            "workers: expected a whole number, found bool",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nstyle: loose\n",
            "style: unknown style 'loose'",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nscenarios: [abs]\n",
            "scenarios[0]: unknown scenario 'abs'",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nsubsets: [pt.x.y]\n",
            "subsets[0]: invalid subset 'pt.x.y'",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nsubsets: [selectivo]\n",
            "subsets[0]: a selective subset needs every run's declared veil",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt, runs/a.txt]\noutput: out\n",
            "runs[1]: duplicate run name 'a'",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\ncharts: no charts\n",
            "charts: expected true or false, found str",
        ),
        ("- just\n- a list\n", "(top): expected a mapping"),
        ("collection: [unclosed\n", "not valid YAML"),
    ],
)
def test_mistakes_name_the_key(campaign_dir: Path, text: str, message: str) -> None:
    path = write(campaign_dir, text)
    with pytest.raises(ConfigError) as exc:
        load_campaign(path)
    line = str(exc.value)
    assert "\n" not in line
    assert line.startswith(str(path))
    assert message in line


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_campaign(tmp_path / "pipeline.yaml")


@pytest.mark.parametrize(
    ("name", "subset"),
    [
        ("total", Subset("total")),
        ("pt", Subset("pt", variant="pt")),
        ("jornalistico", Subset("jornalistico", genre="jornalistico")),
        ("pt.jornalistico", Subset("pt.jornalistico", variant="pt", genre="jornalistico")),
        ("selectivo", Subset("selectivo", selective=True)),
        (
            "selectivo.jornalistico",
            Subset("selectivo.jornalistico", genre="jornalistico", selective=True),
        ),
        ("pt.jornalistico.web", None),
        ("PT", None),
    ],
)
def test_parse_subset(name: str, subset: Subset | None) -> None:
    assert parse_subset(name) == subset


# ---------------------------------------------------------------------------
# Everything a task would trip over later is refused before any task runs.


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: cd.txt\n",
            "output: is a file, not a folder: cd.txt",
        ),
        (
            # glob's '*' matches the folder extra/sub as well as the run file
            "collection: cd.txt\nruns: ['extra/*']\noutput: out\n",
            "runs[0]: 'extra/*' matches a folder: extra/sub",
        ),
        (
            # out/summary.json would be a run of the next build
            "collection: cd.txt\nruns: ['runs/*']\noutput: runs\n",
            "output: outputs written in runs would be read as runs (runs[0] 'runs/*' matches",
        ),
        (
            # out/a/a.alinhado.avalida.total.ida2id.json would be a run of the next build
            "collection: cd.txt\nruns: ['runs/*.txt', '*/*/*.json']\noutput: out\n",
            "output: outputs written in out would be read as runs (runs[1] '*/*/*.json' matches",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nveil: 'PESSOA(FOO)'\n",
            "veil: expected a type of PESSOA of the grid",
        ),
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nveil: 'NOPE'\n",
            "veil: expected a category of the grid",
        ),
        (
            "collection: cd.txt\noutput: out\n"
            "runs: [{path: runs/a.txt, veil: 'LOCAL:PESSOA(X)'}]\n",
            "runs[0].veil: expected a type of PESSOA of the grid",
        ),
        ("collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nworkers: 0\n", "workers: expected"),
        ("collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nbootstrap: -1\n", "bootstrap: exp"),
    ],
)
def test_inputs_and_outputs_are_checked_before_anything_runs(
    campaign_dir: Path, text: str, message: str
) -> None:
    (campaign_dir / "extra" / "sub").mkdir(parents=True)
    (campaign_dir / "extra" / "c.txt").write_text("c", encoding="utf-8")
    (campaign_dir / "extra" / "sub" / "x.json").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_campaign(write(campaign_dir, text))
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_an_output_folder_that_cannot_be_written_is_refused(campaign_dir: Path) -> None:
    if os.geteuid() == 0:  # root writes through permissions: use a folder no one can write in
        output = "/proc/harem-pipeline-test/out"
    else:
        locked = campaign_dir / "locked"
        locked.mkdir(mode=0o555)
        output = "locked/out"
    with pytest.raises(ConfigError) as exc:
        load_campaign(
            write(campaign_dir, f"collection: cd.txt\nruns: [runs/a.txt]\noutput: {output}\n")
        )
    assert f"output: cannot write in {output}" in str(exc.value) or "output: cannot write" in str(
        exc.value
    )


def test_an_output_folder_beside_the_runs_is_fine(campaign_dir: Path) -> None:
    campaign = load_campaign(
        write(campaign_dir, "collection: cd.txt\nruns: ['runs/*.txt']\noutput: runs/out\n")
    )
    assert [r.name for r in campaign.runs] == ["a", "b"]
