"""The semantic classification chain in the campaign: Alts → Emir → Ida (strict), AltSem → Ida
(relaxed), Emir relative → Ida; the summary and the report lead with its figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.errors import ConfigError
from harem_pipeline.pipeline.config import load_campaign
from tests.helpers.campaign import build, make_campaign


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_subset_gets_the_official_semantic_files_and_the_summary_leads_with_them(
    tmp_path: Path,
) -> None:
    config = make_campaign(tmp_path, documents=4, extra="scenarios: [absolute, relative]\n")
    config.write_text(config.read_text("utf-8").replace("scenarios: [absolute]\n", ""), "utf-8")
    build(config)
    folder = tmp_path / "out" / "weak"
    base = folder / "weak.alinhado.avalida.total"
    for suffix in (
        ".alts",
        ".alts.emir",
        ".alts.emir.ida",
        ".alts.emir.altrel",
        ".alts.emir.altrel.ida",
        ".alts.emir_relativo",
        ".alts.emir_relativo.ida",
    ):
        assert Path(f"{base}{suffix}").is_file(), suffix
    strict = _json(Path(f"{base}.alts.emir.ida.json"))
    relaxed = _json(Path(f"{base}.alts.emir.altrel.ida.json"))
    relative = _json(Path(f"{base}.alts.emir_relativo.ida.json"))
    assert (strict["scenario"], strict["alt"]) == ("absolute", "strict")
    assert (relaxed["scenario"], relaxed["alt"]) == ("absolute", "relaxed")
    assert relative["scenario"] == "relative"
    assert "|weights:1;1;0.5;0.25|penalties:no|" in strict["signature"]
    rows = {(r["run"], r["scenario"]): r for r in _json(tmp_path / "out" / "summary.json")["rows"]}
    absolute, rel = rows[("weak", "absolute")], rows[("weak", "relative")]
    # the summary carries the very figures of the Ida reports it names
    assert absolute["class_f"] == strict["classificacao"]["medida_f"]
    assert absolute["class_f_relaxed"] == relaxed["classificacao"]["medida_f"]
    assert absolute["id_f_official"] == strict["identificacao"]["medida_f"]
    assert rel["class_f"] == relative["classificacao"]["medida_f"]
    assert rel["class_f_relaxed"] is None  # ALTina runs on the absolute Emir only
    markdown = (tmp_path / "out" / "summary.md").read_text("utf-8")
    assert "Class. F: semantic classification F (CSC)" in markdown
    html = (tmp_path / "out" / "report.html").read_text("utf-8")
    assert "Classificação F (ALT estrito)" in html and 'class="categories"' in html


def test_changing_the_weights_reruns_emir_and_what_follows_only(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=3)
    build(config)
    config.write_text(config.read_text("utf-8") + "weights: '1;2;1;0.5'\n", "utf-8")
    families = {family for family, _ in build(config)}
    assert {"Emir", "AltSem", "Ida", "Summary", "Report"} <= families
    assert not families & {"Align", "Avalida", "Veus", "Alts", "Ida2ID", "Vizir", "Ida2Mor"}
    strict = _json(tmp_path / "out/weak/weak.alinhado.avalida.total.alts.emir.ida.json")
    assert "|weights:1;2;1;0.5|" in strict["signature"]


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("weights: '1;2;x;0'", "weights"),
        ("penalties: maybe", "penalties"),
        ("grid: no.conf", "grid"),
    ],
)
def test_a_bad_semantic_setting_is_one_line_naming_the_key(
    tmp_path: Path, line: str, key: str
) -> None:
    config = make_campaign(tmp_path, documents=1)
    config.write_text(config.read_text("utf-8") + line + "\n", "utf-8")
    with pytest.raises(ConfigError) as error:
        load_campaign(config)
    assert str(error.value).startswith(f"{config}: {key}:")
