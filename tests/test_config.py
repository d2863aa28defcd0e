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
    assert campaign.browse is True


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
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nbrowse: 0\n",
            "browse: expected true or false, found int",
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


# ---------------------------------------------------------------------------
# Hostile or mistaken files: one short line, before anything runs.

BASE = "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\n"


def refusal(folder: Path, text: str) -> str:
    """The one line ``load_campaign`` refuses ``text`` with."""
    with pytest.raises(ConfigError) as exc:
        load_campaign(write(folder, text))
    line = str(exc.value)
    assert "\n" not in line
    return line


def test_an_alias_bomb_is_refused_in_one_short_line(campaign_dir: Path) -> None:
    # nine levels of nine aliases: 9**9 (387 million) strings once expanded, in 1 kB
    levels = ["l0: &l0 [" + ", ".join(["lol"] * 9) + "]"]
    for i in range(1, 9):
        levels.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    text = BASE + "scenarios: [absolute]\nsubsets:\n  " + "\n  ".join(levels) + "\n"
    assert len(text.encode()) < 1100
    line = refusal(campaign_dir, text)
    assert line == (
        f"{campaign_dir / 'pipeline.yaml'}: (file): holds more than 10000 values, each alias "
        "counted where it is used (a campaign needs a few hundred: a YAML alias bomb?)"
    )


def test_aliases_a_campaign_may_use_still_work(campaign_dir: Path) -> None:
    text = (
        "collection: cd.txt\noutput: out\nruns:\n"
        "  - {path: runs/a.txt, veil: &mine 'PESSOA:LOCAL'}\n"
        "  - {path: runs/b.txt, veil: *mine}\n"
    )
    campaign = load_campaign(write(campaign_dir, text))
    assert [run.veil for run in campaign.runs] == ["PESSOA:LOCAL", "PESSOA:LOCAL"]


def test_no_message_shows_a_whole_value(campaign_dir: Path) -> None:
    line = refusal(campaign_dir, BASE + "style: " + "x" * 100_000 + "\n")
    assert line.startswith(f"{campaign_dir / 'pipeline.yaml'}: style: unknown style 'xxxx")
    assert "x" * 60 not in line and "…" in line
    assert len(line) < len(str(campaign_dir)) + 200
    line = refusal(campaign_dir, BASE + "workers: [" + ", ".join(["1"] * 5_000) + "]\n")
    assert "workers: expected a whole number, found list [1, 1, 1" in line
    assert len(line) < len(str(campaign_dir)) + 200


def test_a_nesting_too_deep_is_one_line(campaign_dir: Path) -> None:
    line = refusal(campaign_dir, BASE + "subsets: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "(file): nested too deep to be a campaign" in line


def test_a_number_too_long_for_python_is_one_line(campaign_dir: Path) -> None:
    line = refusal(campaign_dir, BASE + "workers: " + "9" * 5000 + "\n")
    assert "(file): not valid YAML: Exceeds the limit (4300 digits)" in line
    assert len(line) < len(str(campaign_dir)) + 200


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BASE + "1: one\n", "(top): expected setting names, found the int key 1"),
        (BASE + "true: yes\n", "(top): expected setting names, found the bool key True"),
        (
            "collection: cd.txt\noutput: out\nruns: [{path: runs/a.txt, 2: x}]\n",
            "runs[0]: expected setting names, found the int key 2",
        ),
    ],
)
def test_keys_that_are_not_names(campaign_dir: Path, text: str, message: str) -> None:
    assert message in refusal(campaign_dir, text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "collection: cd.txt\nruns: [runs/a.txt]\noutput: out\nworkers: 2\noutput: elsewhere\n",
            "output: given twice, on lines 3 and 5 (YAML would keep the second silently; keep one)",
        ),
        (
            "collection: cd.txt\noutput: out\nruns:\n  - path: runs/a.txt\n    name: x\n"
            "    path: runs/b.txt\n",
            "path: given twice, on lines 4 and 6",
        ),
    ],
)
def test_a_key_given_twice(campaign_dir: Path, text: str, message: str) -> None:
    assert message in refusal(campaign_dir, text)


def test_merge_keys_still_override(campaign_dir: Path) -> None:
    text = (
        "collection: cd.txt\noutput: out\nruns:\n"
        "  - &a {path: runs/a.txt, name: first}\n"
        "  - {<<: *a, name: second}\n"
    )
    assert [run.name for run in load_campaign(write(campaign_dir, text)).runs] == [
        "first",
        "second",
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("collection_meta: false", "collection_meta: expected a file path, found bool"),
        ('collection_meta: ""', "collection_meta: expected a file path, found an empty string"),
        ('grid: ""', "grid: expected a file path, found an empty string"),
        ("grid: 0", "grid: expected a file path, found int 0"),
        ('output: ""', "output: expected a folder path, found an empty string"),
    ],
)
def test_empty_or_false_paths_are_not_ignored(campaign_dir: Path, line: str, message: str) -> None:
    text = "collection: cd.txt\nruns: [runs/a.txt]\n" + (
        "" if "output" in line else "output: out\n"
    )
    assert message in refusal(campaign_dir, text + line + "\n")


def test_collection_meta_null_is_no_meta(campaign_dir: Path) -> None:
    assert (
        load_campaign(write(campaign_dir, BASE + "collection_meta: null\n")).collection_meta is None
    )


@pytest.mark.parametrize("value", [100_001, 10**9, 10**30])
def test_bootstrap_has_an_upper_bound(campaign_dir: Path, value: int) -> None:
    line = refusal(campaign_dir, BASE + f"bootstrap: {value}\n")
    assert f"bootstrap: expected 0 to 100000, found {value}"[:70] in line


def test_the_bound_itself_is_accepted(campaign_dir: Path) -> None:
    from harem_pipeline.measures.bootstrap import MAX_RESAMPLES

    assert MAX_RESAMPLES == 100_000
    campaign = load_campaign(write(campaign_dir, BASE + "bootstrap: 100000\n"))
    assert campaign.bootstrap == MAX_RESAMPLES


@pytest.mark.parametrize(
    "name",
    [
        "report.html",
        "summary.md",
        "summary.csv",
        "summary.json",
        "campaign.manifest.json",
        "summary.json.manifest.json",
        "Report.HTML",
    ],
)
def test_a_run_named_as_a_file_of_the_campaign(campaign_dir: Path, name: str) -> None:
    text = f"collection: cd.txt\noutput: out\nruns: [{{path: runs/a.txt, name: {name}}}]\n"
    line = refusal(campaign_dir, text)
    assert f"runs[0].name: run name '{name}' is the name of a file of the campaign's own" in line


def test_a_run_file_named_as_a_file_of_the_campaign(campaign_dir: Path) -> None:
    (campaign_dir / "runs" / "report.html.txt").write_text("r", encoding="utf-8")
    line = refusal(campaign_dir, "collection: cd.txt\noutput: out\nruns: [runs/*.txt]\n")
    assert "runs[2].name: run name 'report.html' is the name of a file" in line


def test_a_run_name_too_long_for_the_file_system(campaign_dir: Path) -> None:
    name = "r" * 300
    text = f"collection: cd.txt\noutput: out\nruns: [{{path: runs/a.txt, name: {name}}}]\n"
    line = refusal(campaign_dir, text)
    # the longest name, a TEMPO report's manifest:
    # NAME.alinhado.avalida.total.alts.emir.altrel.estendido_completo.tempo.ida.manifest.json
    suffix = ".alinhado.avalida.total.alts.emir.altrel.estendido_completo.tempo.ida.manifest.json"
    longest = 300 + len(suffix)
    assert longest == 383
    assert "runs[0].name: run name 'rrrr" in line
    assert f"makes file names of {longest} bytes" in line
    assert "the file system takes 255 (a run name of at most 158 bytes)" in line
    assert len(line) < len(str(campaign_dir)) + 300


def test_the_longest_run_name_allowed_builds_its_names(campaign_dir: Path) -> None:
    # 158 bytes + the longest suffix (83, a TEMPO report's manifest) + a temporary's 14 = 255
    text = f"collection: cd.txt\noutput: out\nruns: [{{path: runs/a.txt, name: {'r' * 158}}}]\n"
    load_campaign(write(campaign_dir, text))
    text = text.replace("r" * 158, "r" * 159)
    assert "at most 158 bytes" in refusal(campaign_dir, text)


def test_a_grid_that_is_not_a_grid(campaign_dir: Path) -> None:
    line = refusal(campaign_dir, BASE + "grid: cd.txt\n")
    assert line.startswith(f"{campaign_dir / 'pipeline.yaml'}: grid: not a category grid: ")
    assert "cd.txt, line 1: expected a grid line C:, T:, S:, R:, X: or Y: with a value" in line


def test_a_grid_that_is_a_grid(campaign_dir: Path) -> None:
    from harem_pipeline.formats.veils import DEFAULT_GRID_PATH

    (campaign_dir / "mine.conf").write_bytes(DEFAULT_GRID_PATH.read_bytes())
    campaign = load_campaign(write(campaign_dir, BASE + "grid: mine.conf\n"))
    assert campaign.grid == campaign_dir / "mine.conf"


def test_a_dangling_link_among_the_runs(campaign_dir: Path) -> None:
    (campaign_dir / "runs" / "c.txt").symlink_to("gone.txt")
    line = refusal(campaign_dir, "collection: cd.txt\noutput: out\nruns: [runs/*.txt]\n")
    assert (
        "runs[0]: 'runs/*.txt' matches a dangling symbolic link (to 'gone.txt'): runs/c.txt" in line
    )
    line = refusal(campaign_dir, "collection: cd.txt\noutput: out\nruns: [{path: runs/c.txt}]\n")
    assert "runs[0].path: runs/c.txt is a dangling symbolic link (to 'gone.txt')" in line


def test_a_fifo_among_the_runs(campaign_dir: Path) -> None:
    os.mkfifo(campaign_dir / "runs" / "c.txt")
    line = refusal(campaign_dir, "collection: cd.txt\noutput: out\nruns: [runs/*.txt]\n")
    assert "runs[0]: 'runs/*.txt' matches a FIFO (named pipe): runs/c.txt" in line
    line = refusal(campaign_dir, "collection: cd.txt\noutput: out\nruns: [runs/c.txt]\n")
    assert "runs[0]: 'runs/c.txt' matches a FIFO (named pipe): runs/c.txt" in line
    line = refusal(campaign_dir, "collection: runs/c.txt\noutput: out\nruns: [runs/a.txt]\n")
    assert "collection: runs/c.txt is a FIFO (named pipe)" in line


def test_a_folder_among_the_runs_is_still_named_so(campaign_dir: Path) -> None:
    (campaign_dir / "runs" / "d.txt").mkdir()
    line = refusal(campaign_dir, "collection: cd.txt\noutput: out\nruns: [runs/*.txt]\n")
    assert "runs[0]: 'runs/*.txt' matches a folder: runs/d.txt" in line


@pytest.mark.parametrize(
    "line",
    [
        "k" * 100_000 + ": 1",  # an unknown key
        "veil: 'PESSOA(" + "X" * 100_000 + ")'",
        "output: " + "o" * 100_000 + "/x",  # a name the file system refuses
        "collection: " + "c" * 300,
    ],
)
def test_long_keys_and_values_are_cut_in_every_message(campaign_dir: Path, line: str) -> None:
    (campaign_dir / ("o" * 200)).write_text("a file", encoding="utf-8")
    text = "collection: cd.txt\nruns: [runs/a.txt]\n" + (
        "" if "output" in line else "output: out\n"
    )
    with pytest.raises(ConfigError) as exc:
        load_campaign(write(campaign_dir, text + line + "\n"))
    message = str(exc.value)
    assert "\n" not in message
    assert len(message) < len(str(campaign_dir)) * 2 + 400, message[:500]


def test_an_output_that_is_a_fifo_says_so(campaign_dir: Path) -> None:
    os.mkfifo(campaign_dir / "out")
    line = refusal(campaign_dir, BASE)
    assert "output: is a FIFO (named pipe), not a folder: out (name a folder)" in line


def test_each_model_run_gets_its_ceiling_run_after_it(campaign_dir: Path) -> None:
    (campaign_dir / "preds.json").write_text("[]", encoding="utf-8")
    campaign = load_campaign(
        write(
            campaign_dir,
            "collection: cd.txt\noutput: out\nruns:\n  - runs/a.txt\n"
            "  - {path: preds.json, format: harem-json, name: m, veil: 'PESSOA:LOCAL'}\n"
            "  - runs/b.txt\n",
        )
    )
    ceiling = campaign.run("m-ceiling")
    assert ceiling.ceiling_of == "m"
    assert ceiling.path == campaign_dir / "out" / "m-ceiling" / "m-ceiling.gold.json"
    assert (ceiling.format, ceiling.veil) == ("harem-json", "PESSOA:LOCAL")
    assert [r.name for r in campaign.runs] == ["a", "m", "b"]
    assert [r.name for r in campaign.scored_runs] == ["a", "m", "m-ceiling", "b"]


@pytest.mark.parametrize(
    ("runs", "extra", "message"),
    [
        (
            "[{path: preds.json, format: harem-json, name: m},"
            " {path: runs/a.txt, name: m-ceiling}]",
            "",
            "runs[1].name: run name 'm-ceiling' is the name of a model run's ceiling run",
        ),
        (
            "[{path: preds.json, format: harem-json, name: m}]",
            "ceilings: 1\n",
            "ceilings: expected",
        ),
    ],
)
def test_ceiling_mistakes_are_one_line(
    campaign_dir: Path, runs: str, extra: str, message: str
) -> None:
    (campaign_dir / "preds.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_campaign(
            write(campaign_dir, f"collection: cd.txt\noutput: out\nruns: {runs}\n{extra}")
        )


def test_a_ceiling_name_clash_is_allowed_without_ceilings(campaign_dir: Path) -> None:
    (campaign_dir / "preds.json").write_text("[]", encoding="utf-8")
    campaign = load_campaign(
        write(
            campaign_dir,
            "collection: cd.txt\noutput: out\nceilings: false\nruns:\n"
            "  - {path: preds.json, format: harem-json, name: m}\n"
            "  - {path: runs/a.txt, name: m-ceiling}\n",
        )
    )
    assert [r.name for r in campaign.scored_runs] == ["m", "m-ceiling"]
