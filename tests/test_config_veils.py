"""``veils:`` in pipeline.yaml: named veils, ``official``, and runs naming one.

Every mistake is one ConfigError line naming the key, before anything runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import ConfigError
from harem_pipeline.pipeline.config import NamedVeil, load_campaign, official_veils


@pytest.fixture()
def campaign_dir(tmp_path: Path) -> Path:
    (tmp_path / "cd.txt").write_text("cd", encoding="utf-8")
    (tmp_path / "runs").mkdir()
    for name in ("a", "b"):
        (tmp_path / "runs" / f"{name}.txt").write_text(name, encoding="utf-8")
    return tmp_path


def write(folder: Path, extra: str) -> Path:
    path = folder / "pipeline.yaml"
    path.write_text(f"collection: cd.txt\noutput: out\n{extra}", encoding="utf-8")
    return path


def test_the_official_grid_is_the_fifteen_veils_of_the_script() -> None:
    grid = official_veils()
    assert [v.name for v in grid] == [
        "cenario3",
        "cenario5",
        "total",
        "cenario2",
        "cenario4",
        "cenario6",
        "tempo",
        "abstraccao",
        "acontecimento",
        "coisa",
        "local",
        "obra",
        "organizacao",
        "pessoa",
        "valor",
    ]
    by_name = {v.name: v.veil for v in grid}
    assert by_name["cenario4"].endswith(":PESSOA:TEMPO:VALOR")  # index 5 of the script
    assert by_name["cenario5"] == "LOCAL(FISICO{*};HUMANO{*})"
    assert by_name["total"] == "*"


def test_official_and_named_and_user_veils(campaign_dir: Path) -> None:
    campaign = load_campaign(write(campaign_dir, "runs: [runs/*.txt]\nveils: official\n"))
    assert campaign.veils == official_veils()
    text = "runs: [runs/*.txt]\nveils: [total, pessoa, {name: meu, veil: 'PESSOA:LOCAL'}]\n"
    campaign = load_campaign(write(campaign_dir, text))
    assert campaign.veils == (
        NamedVeil("total", "*"),
        NamedVeil("pessoa", "PESSOA"),
        NamedVeil("meu", "PESSOA:LOCAL"),
    )
    assert load_campaign(write(campaign_dir, "runs: [runs/*.txt]\n")).veils == ()


def test_a_run_naming_a_veil_takes_its_definition(campaign_dir: Path) -> None:
    text = "runs:\n  - {path: runs/a.txt, veil: pessoa}\n  - runs/b.txt\nveils: official\n"
    campaign = load_campaign(write(campaign_dir, text))
    a = campaign.run("a")
    assert (a.veil, a.veil_name) == ("PESSOA", "pessoa")
    assert (campaign.run("b").veil, campaign.run("b").veil_name) == (None, None)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "runs: [runs/*.txt]\nveils: [total, cenario9]\n",
            "veils[1]: unknown veil name 'cenario9'",
        ),
        (
            "runs:\n  - {path: runs/a.txt, veil: obra}\nveils: [total, pessoa]\n",
            "runs[name=a].veil: names the veil 'obra', which veils: does not list",
        ),
        (
            "runs:\n  - {path: runs/a.txt, veil: pessoa}\n",
            "runs[name=a].veil: names the veil 'pessoa', which veils: does not list",
        ),
        ("runs: [runs/*.txt]\nveils: []\n", "veils: empty"),
        (
            "runs: [runs/*.txt]\nveils: [total, total]\n",
            "veils: the veil name 'total' is listed twice",
        ),
        (
            "runs: [runs/*.txt]\nveils: [{name: meu, veil: 'NADA'}]\n",
            "veils[0].veil: expected",
        ),
        (
            "runs: [runs/*.txt]\nveils: [{name: Meu, veil: PESSOA}]\n",
            "veils[0].name: invalid veil name",
        ),
    ],
)
def test_bad_veils_are_one_line(campaign_dir: Path, extra: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_campaign(write(campaign_dir, extra))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_harem_run_stops_on_a_bad_veil_before_anything_runs(
    campaign_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(campaign_dir, "runs: [runs/*.txt]\nveils: [cenario9]\n")
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown veil name 'cenario9'" in err
    assert not (campaign_dir / "out").exists()
