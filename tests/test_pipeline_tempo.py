"""The TEMPO track in a campaign: ``tempo:`` in pipeline.yaml, its tasks, the summary.

A campaign on the TEMPO collection (a few documents of it, to stay quick)
with the collection itself and a simulated run: each subset's ``.emir`` and
``.emir.altrel`` get a ``.tempo`` per mode, equal to what ``harem tempo``
writes, and an Ida report; the summary and the HTML report gain the TEMPO
table, where the collection against itself scores F = 1 in every mode.  A
collection without TEMPO attributes runs no TEMPO task; ``tempo: false``
turns the track off; a wrong ``tempo:`` is one line naming the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.errors import ConfigError
from harem_pipeline.pipeline.config import load_campaign
from harem_pipeline.pipeline.tempo import run_tempo
from tests.helpers.campaign import build, make_campaign
from tests.helpers.tempo import MODES, tempo_campaign


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = tempo_campaign(tmp_path_factory.mktemp("tempo"))
    build(config)
    return config.parent / "out"


def test_every_mode_of_both_emir_files_is_scored(built: Path) -> None:
    folder = built / "gold"
    for mode in MODES:
        for emir in ("emir", "emir.altrel"):
            name = f"gold.alinhado.avalida.total.muc.alts.{emir}.{mode}.tempo"
            assert (folder / name).is_file()
            assert (folder / f"{name}.ida.json").is_file()
            assert Path(f"{folder / name}.ida.manifest.json").is_file()


def test_the_campaign_tempo_is_what_harem_tempo_writes(built: Path, tmp_path: Path) -> None:
    emir = built / "average" / "average.alinhado.avalida.total.muc.alts.emir"
    for mode, name in enumerate(MODES, 1):
        ours = run_tempo(emir, mode, tmp_path / "x.tempo", tmp_path / "x.err")
        campaign = emir.with_name(f"{emir.name}.{name}.tempo")
        assert ours.path.read_bytes() == campaign.read_bytes()
        errors = emir.with_name(f"{emir.name}.{name}.ERROS.txt")
        assert errors.is_file() == (ours.errors > 0)
        (tmp_path / "x.err").unlink(missing_ok=True)


def test_the_summary_has_the_tempo_table(built: Path) -> None:
    summary = json.loads((built / "summary.json").read_text(encoding="utf-8"))
    rows = summary["tempo"]
    assert len(rows) == 2 * 3 * 2  # runs × modes × strict/relaxed
    gold = [r for r in rows if r["run"] == "gold"]
    assert {r["f"] for r in gold} == {1.0}
    average = [r for r in rows if r["run"] == "average"]
    assert all(r["simulated"] and 0 < r["f"] < 1 for r in average)
    assert all("tempo:estendido_" in r["signature"] for r in rows)
    markdown = (built / "summary.md").read_text(encoding="utf-8")
    assert "## The TEMPO track" in markdown and "| gold | total | estendido_sonorm |" in markdown
    html = (built / "report.html").read_text(encoding="utf-8")
    assert "<h2>Pista TEMPO</h2>" in html and "estendido_semnorm" in html


def test_changing_the_modes_reruns_only_what_they_reach(tmp_path: Path) -> None:
    config = tempo_campaign(tmp_path, "tempo: {modes: [1]}\n")
    first = {family for family, _ in build(config)}
    assert {"Tempo", "TempoIda", "Emir"} <= first
    assert build(config) == []  # unchanged: nothing runs
    text = config.read_text(encoding="utf-8").replace("modes: [1]", "modes: [1, 3]")
    config.write_text(text, encoding="utf-8")
    again = build(config)
    # The new mode's four tasks per run (strict and relaxed), then the summary and report.
    assert sorted({family for family, _ in again}) == ["Report", "Summary", "Tempo", "TempoIda"]
    assert sum(family == "Tempo" for family, _ in again) == 2 * 2


def test_a_relative_only_campaign_keeps_its_tempo_table(tmp_path: Path) -> None:
    config = tempo_campaign(tmp_path, "tempo: {modes: [2]}\n")
    text = config.read_text(encoding="utf-8").replace("[absolute]", "[relative]")
    config.write_text(text, encoding="utf-8")
    build(config)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert [(r["run"], r["mode"], r["alt"]) for r in summary["tempo"]] == [
        ("average", "estendido_semnorm", "strict"),
        ("average", "estendido_semnorm", "relaxed"),
        ("gold", "estendido_semnorm", "strict"),
        ("gold", "estendido_semnorm", "relaxed"),
    ]


def test_a_collection_without_tempo_attributes_runs_no_tempo_task(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2)
    families = {family for family, _ in build(config)}
    assert "Tempo" not in families and "TempoIda" not in families
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert "tempo" not in summary


def test_tempo_false_turns_the_track_off(tmp_path: Path) -> None:
    config = tempo_campaign(tmp_path, "tempo: false\n")
    assert load_campaign(config).tempo == ()


def test_tempo_modes_are_chosen_by_number_or_name(tmp_path: Path) -> None:
    config = tempo_campaign(tmp_path, "tempo: {modes: [3, completo]}\n")
    assert load_campaign(config).tempo == (3, 1)


@pytest.mark.parametrize(
    ("setting", "found"),
    [("tempo: {modes: [4]}", "found 4"), ("tempo: [1, 2]", "expected false or a mapping")],
)
def test_a_wrong_tempo_setting_is_one_line(tmp_path: Path, setting: str, found: str) -> None:
    config = tempo_campaign(tmp_path, setting + "\n")
    with pytest.raises(ConfigError) as error:
        load_campaign(config)
    assert str(error.value).startswith(f"{config}: tempo: ") and found in str(error.value)
