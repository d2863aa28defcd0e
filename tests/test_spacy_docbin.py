"""``--format spacy``: spaCy's DocBin in export, import and ``evaluate()``.

spaCy is an optional extra: these tests skip without it (CI installs it).
The one test that needs no spaCy is the error line a user without it gets.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import read_collection

DATA = Path(__file__).resolve().parent.parent / "data"
MINI = DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz"
CD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<colHAREM versao="x">\n'
    '<DOC DOCID="D1">\n<P>Disse <EM ID="1" CATEG="PESSOA" TIPO="INDIVIDUAL">W. JAMES</EM> '
    'em <EM ID="2" CATEG="LOCAL" TIPO="HUMANO">Nova Iorque</EM>.  Fim.</P>\n'
    '<P>A <EM ID="3" CATEG="ORGANIZACAO" TIPO="EMPRESA">Net&amp;Tek</EM> saiu.</P>\n</DOC>\n'
    '<DOC DOCID="D2">\n<P>Nada aqui.</P>\n</DOC>\n</colHAREM>\n'
)


@pytest.fixture
def cd(tmp_path: Path) -> Path:
    path = tmp_path / "cd.xml"
    path.write_text(CD, encoding="utf-8")
    return path


def entities_of(run: Path) -> list[tuple[str, str, str]]:
    return [
        (doc.docid, e.categories[0], doc.text[e.start : e.end])
        for doc in read_collection(run).documents
        for e in doc.entities
    ]


def docs_of(path: Path) -> list:
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    return list(DocBin().from_bytes(path.read_bytes()).get_docs(spacy.blank("pt").vocab))


def write_docs(docs: list, path: Path) -> None:
    from spacy.tokens import DocBin

    path.write_bytes(DocBin(docs=docs, store_user_data=True).to_bytes())


def test_export_writes_one_doc_per_document_with_the_text_kept(cd: Path, tmp_path: Path) -> None:
    out = tmp_path / "gold.spacy"
    pytest.importorskip("spacy")
    assert main(["export", str(cd), "--format", "spacy", "-o", str(out)]) == 0
    d1, d2 = docs_of(out)
    # the text character for character (references read, the double space kept)
    assert d1.text == "\nDisse W. JAMES em Nova Iorque.  Fim.\nA Net&Tek saiu.\n"
    assert [(e.text, e.label_) for e in d1.ents] == [
        ("W. JAMES", "PESSOA"),
        ("Nova Iorque", "LOCAL"),
        ("Net&Tek", "ORGANIZACAO"),
    ]
    assert [s.text.strip() for s in d1.sents] == [
        "Disse W. JAMES em Nova Iorque.",
        "Fim.",
        "A Net&Tek saiu.",
    ]
    assert (d1.user_data["doc_id"], d2.user_data["doc_id"], d2.ents) == ("D1", "D2", ())


def test_a_real_collection_round_trips_as_the_json_export_does(tmp_path: Path) -> None:
    pytest.importorskip("spacy")
    runs = {}
    for fmt in ("spacy", "harem-json"):
        exported = tmp_path / f"mini.{fmt}"
        assert main(["export", str(MINI), "--format", fmt, "-o", str(exported)]) == 0
        runs[fmt] = tmp_path / f"{fmt}.run.xml"
        args = ["import", str(exported), "--format", fmt, "--cd", str(MINI), "-o", str(runs[fmt])]
        assert main(args) == 0
    assert runs["spacy"].read_bytes() == runs["harem-json"].read_bytes()
    assert len(entities_of(runs["spacy"])) == 3603


def test_docs_without_docids_fill_the_collection_in_order(cd: Path, tmp_path: Path) -> None:
    """What ``nlp.pipe`` over the collection's texts gives: Docs with entities, no ids."""
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("pt")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "LOCAL", "pattern": [{"TEXT": "Nova"}, {"TEXT": "Iorque"}]},
            {"label": "PESSOA", "pattern": "Fim"},
        ]
    )
    texts = ["\nDisse W. JAMES em Nova Iorque.  Fim.\nA Net&Tek saiu.\n", "\nNada aqui.\n"]
    pred = tmp_path / "model.spacy"
    write_docs(list(nlp.pipe(texts)), pred)
    run = tmp_path / "run.xml"
    assert main(["import", str(pred), "--format", "spacy", "--cd", str(cd), "-o", str(run)]) == 0
    assert entities_of(run) == [("D1", "LOCAL", "Nova Iorque"), ("D1", "PESSOA", "Fim")]


def test_evaluate_guesses_a_docbin_by_its_name(cd: Path, tmp_path: Path) -> None:
    pytest.importorskip("spacy")
    from harem_pipeline import evaluate

    gold = tmp_path / "gold.spacy"
    assert main(["export", str(cd), "--format", "spacy", "--types", "-o", str(gold)]) == 0
    result = evaluate(gold, cd)
    assert result["exact"]["f1"] == 1.0
    assert result["identification"]["medida_f"] == 1.0


def test_an_unknown_docid_is_one_line(cd: Path, tmp_path: Path, capsys) -> None:
    spacy = pytest.importorskip("spacy")
    doc = spacy.blank("pt")("Nada aqui.")
    doc.user_data["doc_id"] = "D9"
    pred = tmp_path / "p.spacy"
    write_docs([doc], pred)
    assert main(["import", str(pred), "--format", "spacy", "--cd", str(cd)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert str(pred) in err and "a DOCID of the collection" in err and "D9" in err


def test_a_file_that_is_not_a_docbin_is_one_line(cd: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("spacy")
    pred = tmp_path / "p.spacy"
    pred.write_text('[{"doc_id": "D1"}]', encoding="utf-8")
    assert main(["import", str(pred), "--format", "spacy", "--cd", str(cd)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert str(pred) in err and "expected a spaCy DocBin (.spacy)" in err


def test_without_spacy_the_format_is_one_line_saying_how_to_get_it(
    cd: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    real_import = builtins.__import__

    def no_spacy(name, *args, **kwargs):
        if name == "spacy" or name.startswith("spacy."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_spacy)
    out = tmp_path / "gold.spacy"
    assert main(["export", str(cd), "--format", "spacy", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "pip install 'harem-pipeline[spacy]'" in err
    assert not out.exists()


def test_a_campaign_scores_a_docbin_run_as_its_hf_twin(tmp_path: Path) -> None:
    """``format: spacy`` in pipeline.yaml: imported, then scored as the same gold given as
    Hugging Face rows (the same tokens: an entity inside a token widened alike)."""
    pytest.importorskip("spacy")
    from tests.helpers.campaign import build, make_campaign

    config = make_campaign(tmp_path, documents=6)
    for fmt, name in (("spacy", "preds.spacy"), ("hf", "preds.hf.jsonl")):
        args = ["export", str(tmp_path / "cd.txt"), "--format", fmt, "-o", str(tmp_path / name)]
        assert main(args) == 0
    config.write_text(
        "collection: cd.txt\nruns:\n  - {path: preds.spacy, format: spacy, name: doc}\n"
        "  - {path: preds.hf.jsonl, format: hf, name: json}\n"
        "output: out\nsubsets: [total]\nscenarios: [absolute]\nbootstrap: 0\n",
        encoding="utf-8",
    )
    build(config)
    out = tmp_path / "out"
    assert (out / "doc" / "doc.run").read_bytes() == (out / "json" / "json.run").read_bytes()
    figures = []
    for run in ("doc", "json"):
        report = out / run / f"{run}.alinhado.avalida.total.ida2id.json"
        figures.append(json.loads(report.read_text("utf-8")))
        del figures[-1]["signature"]  # names the predictions file's digest
    assert figures[0] == figures[1] and figures[0]["total_identificadas"] > 0
