"""``harem_pipeline.evaluate`` and ``span_measures``: the chain of ``harem run`` in one call.

A campaign of six First HAREM documents is built with Luigi (``harem run``'s
build) on a model's predictions: the collection exported, a third of its
entities dropped and every fifth relabelled.  ``evaluate`` on the same file,
and on the same documents in memory, gives the campaign's report files
figure for figure.  ``span_measures`` is checked against seqeval.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import harem_pipeline
from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.tools.export import SELECTIVE
from tests.helpers.campaign import build, make_campaign
from tests.helpers.paths import DATA

BOOTSTRAP = 20


def damaged(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A model's mistakes: every third entity missed, every fifth given another category."""
    out, n = [], 0
    for doc in documents:
        entities = []
        for entity in doc["entities"]:
            n += 1
            if n % 3 == 0:
                continue
            if n % 5 == 0:
                entity = {**entity, "label": "LOCAL" if entity["label"] != "LOCAL" else "PESSOA"}
            entities.append(entity)
        out.append({**doc, "entities": entities})
    return out


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("campaign")
    config = make_campaign(folder, documents=6)
    gold = folder / "gold.json"
    assert main(["export", str(folder / "cd.txt"), "--format", "harem-json", "-o", str(gold)]) == 0
    documents = damaged(json.loads(gold.read_text("utf-8")))
    # written as evaluate() writes in-memory documents, so the run digests agree too
    preds = folder / "preds.json"
    preds.write_text(json.dumps(documents, ensure_ascii=False), encoding="utf-8")
    config.write_text(
        "collection: cd.txt\nruns:\n  - {path: preds.json, format: harem-json, name: model}\n"
        f"output: out\nsubsets: [total]\nscenarios: [absolute, relative]\n"
        f"bootstrap: {BOOTSTRAP}\ncharts: false\n",
        encoding="utf-8",
    )
    build(config)
    return folder, documents


def report(folder: Path, suffix: str) -> dict[str, Any]:
    data = json.loads((folder / "out" / "model" / f"model{suffix}").read_text("utf-8"))
    data.pop("documents", None)
    return data


def assert_equals_campaign(result: dict[str, Any], folder: Path) -> None:
    ida2id = report(folder, ".alinhado.avalida.total.ida2id.json")
    measures = ida2id.pop("measures")
    measures.pop("documents", None)
    strict = report(folder, ".alinhado.avalida.total.alts.emir.ida.json")
    relaxed = report(folder, ".alinhado.avalida.total.alts.emir.altrel.ida.json")
    relative = report(folder, ".alinhado.avalida.total.alts.emir_relativo.ida.json")
    assert result["signature"] == ida2id["signature"]
    assert result["identification"] == ida2id
    assert result["measures"] == measures
    assert result["classification"] == {
        "strict": strict["classificacao"],
        "relaxed": relaxed["classificacao"],
        "relative": relative["classificacao"],
    }
    assert result["official"] == {"strict": strict, "relaxed": relaxed, "relative": relative}
    for family in ("exact", "overlap", "intersection"):
        assert result[family]["f1"] == measures["labelled"][family]["f1"]
        assert result[family]["per_label"]["PESSOA"] == measures["per_label"]["PESSOA"][family]
    assert result["ci95"]["identification"] == ida2id["ci95"]
    assert result["ci95"]["classification"]["strict"] == strict["ci95"]
    # the summary's rows are the same reports
    rows = json.loads((folder / "out" / "summary.json").read_text("utf-8"))["rows"]
    absolute = next(r for r in rows if r["scenario"] == "absolute")
    assert absolute["class_f"] == result["classification"]["strict"]["medida_f"]
    assert absolute["class_f_relaxed"] == result["classification"]["relaxed"]["medida_f"]
    assert absolute["id_f"] == result["identification"]["medida_f"]
    assert absolute["exact_f1"] == result["exact"]["f1"]
    json.dumps(result)  # plain JSON


def test_evaluate_a_file_equals_the_campaign_report_files(campaign) -> None:
    folder, _ = campaign
    result = harem_pipeline.evaluate(folder / "preds.json", folder / "cd.txt", bootstrap=BOOTSTRAP)
    assert_equals_campaign(result, folder)
    # a real model's figures: not the gold's
    assert 0 < result["exact"]["f1"] < 1
    assert result["identification"]["em_falta"] > 0


def test_evaluate_in_memory_documents_equals_the_campaign(campaign) -> None:
    folder, documents = campaign
    result = harem_pipeline.evaluate(
        documents, folder / "cd.txt", bootstrap=BOOTSTRAP, ceiling=False
    )
    assert_equals_campaign(result, folder)
    assert "ceiling" not in result


def unsigned(value: Any) -> Any:
    """``value`` without its signatures."""
    if isinstance(value, dict):
        return {k: unsigned(v) for k, v in value.items() if k != "signature"}
    return value


def test_the_ceiling_is_the_exported_gold_scored_as_predictions(campaign) -> None:
    folder, _ = campaign
    result = harem_pipeline.evaluate(folder / "preds.json", folder / "cd.txt")
    gold = json.loads((folder / "gold.json").read_text("utf-8"))
    own = harem_pipeline.evaluate(gold, folder / "cd.txt", ceiling=False)
    ceiling = result["ceiling"]
    assert set(ceiling) == set(own)
    # the same figures; only the run's digest in the signatures differs (another file)
    assert unsigned(ceiling) == unsigned(own)
    assert ceiling["signature"].split("|run:")[0] == own["signature"].split("|run:")[0]
    # the exported gold is perfect on every span measure, yet the categories-only
    # export cannot reach 1 under the default veil, which scores types too
    assert ceiling["exact"]["f1"] == ceiling["overlap"]["f1"] == 1.0
    assert ceiling["classification"]["strict"]["medida_f"] < 1.0
    assert "ci95" not in result


def test_a_campaign_scores_each_model_s_ceiling_beside_it(campaign) -> None:
    """The campaign's ``model-ceiling`` run is evaluate()'s ceiling, figure for figure and
    signature for signature (the same exported file), and its rows follow the model's."""
    folder, _ = campaign
    result = harem_pipeline.evaluate(folder / "preds.json", folder / "cd.txt", bootstrap=BOOTSTRAP)
    ceiling = result["ceiling"]
    out = folder / "out"
    own = json.loads((out / "model-ceiling" / "model-ceiling.gold.json").read_text("utf-8"))
    assert [d["doc_id"] for d in own] == [d["doc_id"] for d in campaign[1]]
    ida2id = json.loads(
        (out / "model-ceiling" / "model-ceiling.alinhado.avalida.total.ida2id.json").read_text()
    )
    assert ida2id["signature"] == ceiling["signature"]
    assert ida2id["medida_f"] == ceiling["identification"]["medida_f"]
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    rows = summary["rows"]
    assert [(r["run"], r["scenario"]) for r in rows] == [
        ("model", "absolute"),
        ("model", "relative"),
        ("model-ceiling", "absolute"),
        ("model-ceiling", "relative"),
    ]
    assert [r.get("ceiling_of") for r in rows] == [None, None, "model", "model"]
    row = rows[2]
    assert row["class_f"] == ceiling["classification"]["strict"]["medida_f"] < 1.0
    assert row["class_f_relaxed"] == ceiling["classification"]["relaxed"]["medida_f"]
    assert row["id_f"] == ceiling["identification"]["medida_f"]
    assert row["exact_f1"] == ceiling["exact"]["f1"] == 1.0
    assert rows[3]["class_f"] == ceiling["classification"]["relative"]["medida_f"]
    assert summary["campaign"]["runs"] == ["model"]  # the runs given; ceilings are derived
    markdown = (out / "summary.md").read_text("utf-8")
    assert "| model-ceiling | total | absolute |" in markdown
    assert "Ceiling rows (NAME-ceiling" in markdown
    header, *lines = (out / "summary.csv").read_text("utf-8").splitlines()
    assert header.endswith(",veil,alt,ceiling_of")
    assert [line.rsplit(",", 1)[1] for line in lines] == ["", "", "model", "model"]
    html = (out / "report.html").read_text("utf-8")
    assert html.count('<tr class="ceiling">') == 2  # the leaderboard and its details
    assert "(tecto)</span>" in html and "<strong>Tecto.</strong>" in html


def test_a_campaign_without_ceilings_scores_the_runs_alone(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=2)
    gold = tmp_path / "gold.json"
    assert (
        main(["export", str(tmp_path / "cd.txt"), "--format", "harem-json", "-o", str(gold)]) == 0
    )
    config.write_text(
        "collection: cd.txt\nruns:\n  - {path: gold.json, format: harem-json, name: m}\n"
        "output: out\nsubsets: [total]\nscenarios: [absolute]\nbootstrap: 0\n"
        "charts: false\nbrowse: false\nceilings: false\n",
        encoding="utf-8",
    )
    build(config)
    rows = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))["rows"]
    assert [r["run"] for r in rows] == ["m"]
    assert "ceiling_of" not in rows[0]
    assert not (tmp_path / "out" / "m-ceiling").exists()


def test_the_format_is_guessed_from_the_name_or_the_first_character(tmp_path: Path) -> None:
    from harem_pipeline.api import guess_format

    for name, text, fmt in (
        ("a.json", "", "harem-json"),
        ("a.conll.gz", None, "conll"),
        ("a.jsonl", '{"id": "X", "text": "A", "spans": []}\n', "jsonl"),
        ("a.conll", "", "conll"),
        ("a.txt", ' [{"doc_id": 1}]', "harem-json"),
        ("b.txt", '{"id": 1}\n', "jsonl"),
        ("c.txt", "-DOCSTART- X\nA B-PESSOA\n", "conll"),
        ("d.jsonl", '{"id": "X", "tokens": ["A"], "ner_tags": ["O"]}\n', "hf"),
    ):
        path = tmp_path / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        assert guess_format(path) == fmt, name


def test_evaluate_refuses_what_is_not_documents(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="doc_id"):
        harem_pipeline.evaluate([["not", "a", "document"]], tmp_path / "cd.txt")
    with pytest.raises(InputError, match="scenario"):
        harem_pipeline.evaluate([], tmp_path / "cd.txt", scenario="partial")


def conll_sentences(path: Path) -> tuple[list[list[str]], list[list[str]]]:
    gold, system, g, s = [], [], [], []
    for line in path.read_text("utf-8").splitlines() + [""]:
        if not line.strip():
            if g:
                gold.append(g)
                system.append(s)
            g, s = [], []
            continue
        columns = line.split()
        g.append(columns[-2])
        s.append(columns[-1])
    return gold, system


def test_span_measures_equal_seqeval_on_the_conll2000_sample() -> None:
    from seqeval.metrics import classification_report

    gold, system = conll_sentences(DATA / "conll2000" / "sample.txt")
    block = harem_pipeline.span_measures(gold, system)
    expected = classification_report(gold, system, output_dict=True)
    assert block["exact"]["precision"] == pytest.approx(expected["micro avg"]["precision"])
    assert block["exact"]["recall"] == pytest.approx(expected["micro avg"]["recall"])
    assert block["exact"]["f1"] == pytest.approx(expected["micro avg"]["f1-score"])
    labels = [k for k in expected if not k.endswith(" avg")]
    assert sorted(block["per_label"]) == sorted(labels)
    for label in labels:
        assert block["per_label"][label]["exact"]["f1"] == pytest.approx(
            expected[label]["f1-score"]
        ), label


def test_span_measures_is_the_labelled_block_of_harem_measures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = DATA / "conll2000" / "sample.txt"
    assert main(["measures", str(sample), "--format", "conll", "--json", "--bootstrap", "0"]) == 0
    printed = json.loads(capsys.readouterr().out)
    block = harem_pipeline.span_measures(*conll_sentences(sample))
    assert {k: v for k, v in block.items() if k != "per_label"} == printed["labelled"]
    assert block["per_label"] == printed["per_label"]


def test_span_measures_by_hand() -> None:
    gold = [["B-PER", "I-PER", "O", "B-LOC"]]
    system = [["B-PER", "I-PER", "O", "B-ORG"]]
    block = harem_pipeline.span_measures(gold, system)
    assert block["exact"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "ci95": None}
    assert block["categories"]["label_error"] == {"system": 1, "gold": 1}


def test_span_measures_refuses_sequences_of_different_lengths() -> None:
    with pytest.raises(InputError, match="sentence 0"):
        harem_pipeline.span_measures([["O", "B-PER"]], [["O"]])


def test_only_predicted_scores_the_named_documents_as_the_campaign_does(
    tmp_path: Path, campaign
) -> None:
    """Predictions for two of the six documents: with ``only_predicted`` the other four
    are imported empty, left out by the aligner, and the figures are those of the two
    (a perfect model there scores 1, not a third); the signature says so."""
    folder, _ = campaign
    gold = json.loads((folder / "gold.json").read_text("utf-8"))
    preds = folder / "two.json"
    preds.write_text(json.dumps(gold[:2], ensure_ascii=False), encoding="utf-8")
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"collection: {folder / 'cd.txt'}\nruns:\n"
        f"  - {{path: {preds}, format: harem-json, name: model, only_predicted: true}}\n"
        "output: out\nsubsets: [total]\nscenarios: [absolute, relative]\nbootstrap: 0\n"
        "charts: false\n",
        encoding="utf-8",
    )
    build(config)
    result = harem_pipeline.evaluate(preds, folder / "cd.txt", only_predicted=True)
    ida2id = report(tmp_path, ".alinhado.avalida.total.ida2id.json")
    ida2id.pop("measures")
    assert result["identification"] == ida2id
    assert result["signature"].endswith("|docs:predicted")
    assert result["exact"]["f1"] == result["identification"]["medida_f"] == 1.0
    assert result["ceiling"]["identification"]["total_cd"] == ida2id["total_cd"]
    # the campaign's ceiling run is the gold of the same two documents
    ceiling = tmp_path / "out" / "model-ceiling"
    kept = json.loads((ceiling / "model-ceiling.gold.json").read_text("utf-8"))
    assert [d["doc_id"] for d in kept] == [d["doc_id"] for d in gold[:2]]
    own = json.loads((ceiling / "model-ceiling.alinhado.avalida.total.ida2id.json").read_text())
    assert own["signature"] == result["ceiling"]["signature"]
    assert own["medida_f"] == result["ceiling"]["identification"]["medida_f"]
    everything = harem_pipeline.evaluate(preds, folder / "cd.txt", ceiling=False)
    assert everything["identification"]["total_cd"] > ida2id["total_cd"]
    assert everything["exact"]["recall"] < 1 and "docs:" not in everything["signature"]


def test_the_selective_scenario_scores_the_five_categories(campaign, tmp_path: Path) -> None:
    folder, _ = campaign
    selective = tmp_path / "selective.json"
    argv = ["export", str(folder / "cd.txt"), "--format", "harem-json", "--scenario"]
    assert main([*argv, "selective", "-o", str(selective)]) == 0
    result = harem_pipeline.evaluate(selective, folder / "cd.txt", scenario="selective")
    assert "|subset:selectivo|" in result["signature"]
    assert "|sysveil:LOCAL:ORGANIZACAO:PESSOA:TEMPO:VALOR|" in result["signature"]
    assert result["exact"]["f1"] == result["identification"]["medida_f"] == 1.0
    assert set(result["exact"]["per_label"]) <= {"PESSOA", "ORGANIZACAO", "LOCAL", "TEMPO", "VALOR"}


def test_evaluate_hugging_face_rows_in_memory_equals_the_file(campaign, tmp_path: Path) -> None:
    folder, _ = campaign
    rows_file = tmp_path / "gold.hf.jsonl"
    assert main(["export", str(folder / "cd.txt"), "--format", "hf", "-o", str(rows_file)]) == 0
    rows = [json.loads(line) for line in rows_file.read_text("utf-8").splitlines()]
    rows[0]["ner_tags"] = ["O"] * len(rows[0]["ner_tags"])  # the model misses a document
    in_memory = harem_pipeline.evaluate(rows, folder / "cd.txt", ceiling=False)
    rows_file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    from_file = harem_pipeline.evaluate(rows_file, folder / "cd.txt", ceiling=False)
    assert unsigned(in_memory) == unsigned(from_file)
    # (the few entities widened to whole tokens keep precision just under 1)
    assert in_memory["exact"]["precision"] > 0.95 > in_memory["exact"]["recall"]


def test_a_selective_model_s_ceiling_is_the_selective_export(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=3)
    gold = tmp_path / "gold.json"
    assert (
        main(["export", str(tmp_path / "cd.txt"), "--format", "harem-json", "-o", str(gold)]) == 0
    )
    labels = {e["label"] for d in json.loads(gold.read_text("utf-8")) for e in d["entities"]}
    assert labels - SELECTIVE  # the collection has other categories: the test can fail
    veil = ":".join(sorted(SELECTIVE))
    config.write_text(
        "collection: cd.txt\nruns:\n"
        f"  - {{path: gold.json, format: harem-json, name: m, veil: '{veil}'}}\n"
        "output: out\nsubsets: [total]\nscenarios: [absolute]\nbootstrap: 0\n"
        "charts: false\nbrowse: false\n",
        encoding="utf-8",
    )
    build(config)
    ceiling = tmp_path / "out" / "m-ceiling" / "m-ceiling.gold.json"
    exported = {e["label"] for d in json.loads(ceiling.read_text("utf-8")) for e in d["entities"]}
    assert exported and exported <= SELECTIVE
