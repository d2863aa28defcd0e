"""A model's predictions through the whole campaign with one line of pipeline.yaml.

The campaign's collection is six First HAREM documents; its run is that
collection exported to JSON lines (what a model trained on it would give
back when perfect) and declared ``format: jsonl``.  The pipeline imports it
as its first task (``ImportRun``, with a manifest like every stage), then
scores it as any participant's run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import ConfigError
from harem_pipeline.pipeline.config import load_campaign
from tests.helpers.campaign import build, make_campaign


def predictions_campaign(folder: Path) -> Path:
    config = make_campaign(folder, documents=6)
    exported = folder / "preds.jsonl"
    assert main(["export", str(folder / "cd.txt"), "--format", "jsonl", "-o", str(exported)]) == 0
    config.write_text(
        "collection: cd.txt\nruns:\n  - {path: preds.jsonl, format: jsonl, name: model}\n"
        "output: out\nsubsets: [total]\nscenarios: [absolute]\nbootstrap: 0\n",
        encoding="utf-8",
    )
    return config


def test_a_predictions_run_is_imported_first_then_scored(tmp_path: Path) -> None:
    config = predictions_campaign(tmp_path)
    started = build(config)
    families = [family for family, run in started if run == "model"]
    assert families[0] == "ImportRun" and "Align" in families
    run = tmp_path / "out" / "model" / "model.run"
    assert run.is_file() and (tmp_path / "out" / "model" / "model.run.import.stderr").is_file()
    report = json.loads(
        (tmp_path / "out" / "model" / "model.alinhado.avalida.total.ida2id.json").read_text("utf-8")
    )
    # the collection's own entities (first ALT alternative) as predictions: nothing spurious,
    # and every identified entity is right
    assert report["espurios"] == 0 and report["precisao"] == 1.0
    assert report["total_identificadas"] > 0
    # an unchanged campaign reruns nothing, the import included
    assert build(config) == []


def test_changing_the_predictions_reruns_the_import(tmp_path: Path) -> None:
    config = predictions_campaign(tmp_path)
    build(config)
    preds = tmp_path / "preds.jsonl"
    lines = preds.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    first["spans"] = first["spans"][1:]  # the model misses one entity
    preds.write_text("\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n")
    families = [family for family, run in build(config) if run == "model"]
    assert families[0] == "ImportRun" and "Ida2ID" in families


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ("{path: preds.jsonl, format: docx}", "runs[0].format"),
        ("{path: preds.jsonl, format: conll, scheme: bio9}", "runs[0].scheme"),
        ("{path: preds.jsonl, only_predicted: true}", "runs[0].only_predicted"),
        ("{path: preds.jsonl, format: jsonl, only_predicted: 3}", "runs[0].only_predicted"),
        ("{path: preds.jsonl, label_map: {PER: PESSOA}}", "runs[0].label_map"),
        ("{path: preds.jsonl, format: jsonl, label_map: 'PER=PESSOA,LOC'}", "runs[0].label_map"),
        ("{path: preds.jsonl, format: jsonl, label_map: {PER: 1}}", "runs[0].label_map"),
        ("{path: preds.jsonl, format: jsonl, label_map: [PER]}", "runs[0].label_map"),
    ],
)
def test_a_bad_predictions_format_is_one_line_naming_the_key(
    tmp_path: Path, entry: str, key: str
) -> None:
    (tmp_path / "cd.txt").write_text("x", encoding="utf-8")
    (tmp_path / "preds.jsonl").write_text("{}\n", encoding="utf-8")
    config = tmp_path / "pipeline.yaml"
    config.write_text(f"collection: cd.txt\nruns:\n  - {entry}\noutput: out\n", encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_campaign(config)
    assert str(error.value).startswith(f"{config}: {key}:")


def renamed(preds: Path, names: dict[str, str]) -> None:
    """Rewrite a JSON-lines export with a model's own label names."""
    docs = [json.loads(line) for line in preds.read_text("utf-8").splitlines()]
    for doc in docs:
        for span in doc["spans"]:
            span["label"] = names.get(span["label"], span["label"])
    preds.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), "utf-8")


@pytest.mark.parametrize(
    ("label_map", "file"),
    [
        ("{PER: PESSOA, LOC: LOCAL}", None),
        ("'PER=PESSOA,LOC=LOCAL'", None),  # quoted: a comma ends a YAML flow value
        ("labels.txt", "PER = PESSOA\nLOC = LOCAL\n"),
    ],
)
def test_a_label_map_in_the_campaign_renames_the_models_labels(
    tmp_path: Path, label_map: str, file: str | None
) -> None:
    config = predictions_campaign(tmp_path)

    def ida2id() -> dict:
        path = tmp_path / "out" / "model" / "model.alinhado.avalida.total.ida2id.json"
        return json.loads(path.read_text("utf-8"))

    build(config)
    perfect = ida2id()["measures"]["labelled"]["exact"]
    assert perfect["f1"] == 1.0
    renamed(tmp_path / "preds.jsonl", {"PESSOA": "PER", "LOCAL": "LOC"})
    if file is not None:
        (tmp_path / label_map).write_text(file, encoding="utf-8")
    text = config.read_text("utf-8")
    config.write_text(
        text.replace("name: model}", f"name: model, label_map: {label_map}}}"), encoding="utf-8"
    )
    (spec,) = load_campaign(config).runs
    assert spec.label_map == (("PER", "PESSOA"), ("LOC", "LOCAL"))
    build(config)
    assert ida2id()["measures"]["labelled"]["exact"] == perfect
    # without the map the renamed labels are the model's own: the exact F drops
    config.write_text(text, encoding="utf-8")
    build(config)
    assert ida2id()["measures"]["labelled"]["exact"]["f1"] < 1.0
