"""``harem export``: collections in the models' formats, and back through ``harem import``."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import format_collection, parse_collection, read_collection
from harem_pipeline.measures.resampling import NO_BOOTSTRAP
from harem_pipeline.model import SECOND_HAREM, AltBlock, Collection, Document, Entity
from harem_pipeline.tools.export import (
    CONLL_LEFT_OUT,
    TRIMMED,
    WIDENED,
    ExportSummary,
    choose_alternative,
    conll_layout,
    document_tokens,
    export_document,
    export_documents,
    export_text,
    format_conll_document,
    resolved_collection,
)
from harem_pipeline.tools.predictions import build_run
from harem_pipeline.tools.predictions.chars import decode_references
from harem_pipeline.tools.predictions.merge import read_predictions
from tests.helpers.predictions import D1_TEXT, identification, write_tiny_cd
from tests.helpers.shipped import shipped_collection

DATA = Path(__file__).resolve().parent.parent / "data"
SHIPPED = [
    DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
    DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
    DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz",
]
SUFFIX = {"harem-json": ".json", "jsonl": ".jsonl", "conll": ".conll", "hf": ".hf.jsonl"}


@pytest.mark.parametrize(
    ("cd", "fmt", "alt"),
    [  # each collection, format and ALT choice at least once
        (SHIPPED[0], "conll", "first"),
        (SHIPPED[1], "conll", "best"),
        (SHIPPED[2], "harem-json", "first"),
        (SHIPPED[2], "jsonl", "best"),
        (SHIPPED[2], "hf", "first"),
    ],
    ids=lambda x: x.name if isinstance(x, Path) else x,
)
def test_export_then_import_scores_one(tmp_path, cd, fmt, alt):
    """Exported and imported back, a collection is a perfect run: P = R = F = 1.

    What "perfect" means with ALT blocks in the CD: an export holds one
    alternative per block (``--alt``), while AltinaID lets each run be
    scored against the alternative of each block that suits it.  So the run
    is scored against the collection with every block resolved by the same
    choice (``resolved_collection``), OMITIDO regions kept; then every
    golden entity has its run entity, with the same boundaries, and nothing
    else is in the run.  (Against the unresolved CD a ``first`` export also
    scores 1, AltinaID picking the first alternatives, but that would not
    test ``best``.)
    """
    exported = tmp_path / f"gold{SUFFIX[fmt]}"
    assert main(["export", str(cd), "--format", fmt, "--alt", alt, "-o", str(exported)]) == 0
    run = tmp_path / "run.xml"
    assert main(["import", str(exported), "--format", fmt, "--cd", str(cd), "-o", str(run)]) == 0
    collection = shipped_collection(cd)
    view = tmp_path / "cd.xml"
    text = format_collection(resolved_collection(collection, alt))
    view.write_text(text, encoding=collection.encoding, newline="")
    figures = identification(view, run, tmp_path / "chain")
    lost = widened = 0
    if fmt in ("conll", "hf"):
        # CoNLL writes tokens and sentences from the text alone: an entity that crosses
        # a sentence end is left out, one with a boundary inside a token widened
        for doc in export_documents(collection, alt=alt):
            layout = conll_layout(doc, sentences=fmt == "conll")
            lost += sum(layout.left_out[r] for r in CONLL_LEFT_OUT)
            widened += layout.left_out[WIDENED]
    # (some of those lie in OMITIDO text, which the evaluation leaves out)
    assert figures["espurios"] <= widened and figures["em_falta"] <= lost + widened
    assert figures["total_cd"] - figures["correctas"] <= lost + widened
    if not lost + widened:
        assert figures["total_cd"] == figures["total_identificadas"] == figures["correctas"]
        assert figures["precisao"] == figures["abrangencia"] == figures["medida_f"] == 1.0


def test_export_text_and_labels(tmp_path):
    cd = write_tiny_cd(tmp_path)
    out = tmp_path / "gold.json"
    assert main(["export", str(cd), "--format", "harem-json", "-o", str(out)]) == 0
    docs = json.loads(out.read_text())
    assert docs[0]["doc_text"] == D1_TEXT
    # a vague LOCAL|ORGANIZACAO keeps its first category
    assert [e["label"] for e in docs[0]["entities"]] == ["PESSOA", "LOCAL", "TEMPO"]
    assert main(["export", str(cd), "--format", "jsonl", "--types", "-o", str(out)]) == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["spans"][0] == {"start": 2, "end": 13, "label": "PESSOA:INDIVIDUAL"}


def test_selective_keeps_five_categories(tmp_path):
    cd = shipped_collection(SHIPPED[2])
    kept = {e.label for d in export_documents(cd, "selective") for e in d.entities}
    assert kept == {"PESSOA", "ORGANIZACAO", "LOCAL", "TEMPO", "VALOR"}
    tiny = read_collection(write_tiny_cd(tmp_path))
    (doc, _) = export_documents(tiny, "selective", types=True)
    assert [e.label for e in doc.entities] == ["PESSOA:INDIVIDUAL", "LOCAL", "TEMPO"]


def test_selective_export_scores_one_in_the_selective_scenario(tmp_path):
    """A vague OBRA|LOCAL is exported LOCAL in the selective scenario, so the
    selective export of the Mini-HAREM imported back misses nothing there."""
    cd = SHIPPED[2]
    exported = tmp_path / "gold.json"
    assert (
        main(
            [
                "export",
                str(cd),
                "--format",
                "harem-json",
                "--scenario",
                "selective",
                "-o",
                str(exported),
            ]
        )
        == 0
    )
    run = tmp_path / "run.xml"
    assert (
        main(["import", str(exported), "--format", "harem-json", "--cd", str(cd), "-o", str(run)])
        == 0
    )
    aligned = tmp_path / "run.alinhado"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(aligned)]) == 0
    assert main(["avalida", str(aligned)]) == 0
    veil = "PESSOA:ORGANIZACAO:LOCAL:TEMPO:VALOR"
    assert (
        main(
            ["veus", f"{aligned}.avalida", "--style", "harem", "--selective", "--system-veil", veil]
        )
        == 0
    )
    assert main(["altida", f"{aligned}.avalida.selectivo"]) == 0
    assert main(["ida2id", f"{aligned}.avalida.selectivo.altida"]) == 0
    report = json.loads(Path(f"{aligned}.avalida.selectivo.altida.ida2id.json").read_text())
    assert report["precisao"] == report["abrangencia"] == report["medida_f"] == 1.0


def test_best_takes_the_alternative_with_most_entities():
    def entity(start: int, text: str) -> Entity:
        return Entity(None, ("LOCAL",), (), (), None, text, start, start + len(text))

    block = AltBlock(
        0,
        14,
        ((entity(0, "Rio de Janeiro"),), (entity(0, "Rio"), entity(7, "Janeiro"))),
        ("Rio de Janeiro", "Rio de Janeiro"),
    )
    doc = Document("D", "Rio de Janeiro", alt_blocks=(block,))
    assert choose_alternative(block, "best") == 1
    assert [e.text for e in export_document(doc, alt="best").entities] == ["Rio", "Janeiro"]
    assert [e.text for e in export_document(doc, alt="first").entities] == ["Rio de Janeiro"]


def test_conll_tokens_and_sentences_come_from_the_text_alone():
    cd = parse_collection(
        '<colHAREM><DOC DOCID="D">na<EM CATEG="LOCAL">Europa</EM> e AT&amp;T chegou. Depois\n'
        'outra linha. Disse <EM CATEG="PESSOA">W. JAMES</EM> e <EM CATEG="PESSOA">dr. Soares'
        "</EM>. Fim</DOC></colHAREM>",
        "cd.xml",
        "utf-8",
    )
    (doc,) = export_documents(cd)
    tokens = [doc.text[s:e] for s, e in document_tokens(doc)]
    assert tokens[:5] == ["naEuropa", "e", "AT", "&", "T"]  # the text's references read
    summary = ExportSummary()
    text = "".join(export_text([doc], "conll", "iobes", summary.left_out))
    # the entity inside a token is widened to it; an initial or an abbreviation before
    # a "." ends no sentence, whether an entity is there or not
    assert text.startswith("-DOCSTART- D O\n\nnaEuropa S-LOCAL\n")
    assert ". O\n\nDepois O\n\noutra O\n" in text
    assert "W B-PESSOA\n. I-PESSOA\nJAMES E-PESSOA\n" in text
    assert "dr B-PESSOA\n. I-PESSOA\nSoares E-PESSOA\n. O\n\nFim O\n" in text
    assert summary.left_out[WIDENED] == 1


def test_conll_dropping_every_entity_leaves_tokens_and_sentences_unchanged():
    """The cuts must not depend on the gold: else the file hands a model its boundaries."""
    for path in SHIPPED:
        collection = read_collection(path)
        for doc in export_documents(collection):
            bare = replace(doc, entities=())
            with_gold, without = conll_layout(doc), conll_layout(bare)
            assert (with_gold.tokens, with_gold.ends) == (without.tokens, without.ends)
            lines = format_conll_document(doc).splitlines()
            bare_lines = format_conll_document(bare).splitlines()
            assert [line.rsplit(" ", 1)[0] for line in lines] == [
                line.rsplit(" ", 1)[0] for line in bare_lines
            ], doc.docid


def test_no_exported_entity_has_white_space_at_an_edge():
    summary = ExportSummary()
    for path in SHIPPED:
        for doc in export_documents(read_collection(path), summary=summary):
            for entity in doc.entities:
                piece = doc.text[entity.start : entity.end]
                assert piece == piece.strip() and entity.text == piece, (doc.docid, piece)
    # the First HAREM has 12 such entities, the Mini-HAREM one (" rue Joseph de Maistre")
    assert summary.left_out[TRIMMED] > 0
    assert "adjusted: " in summary.format()


def test_a_docstart_line_is_an_o_token_for_conlleval(tmp_path):
    """Gold column pasted beside predictions: conlleval reads the -DOCSTART- line as a token
    tagged O in both columns, so it counts no entity there (it counted one per document
    with the DOCID as its tag); harem measures and harem import read it as before."""
    cd = write_tiny_cd(tmp_path)
    gold = tmp_path / "gold.conll"
    assert main(["export", str(cd), "--format", "conll", "-o", str(gold)]) == 0
    lines = gold.read_text("utf-8").splitlines()
    docstarts = [line for line in lines if line.startswith("-DOCSTART-")]
    assert docstarts and all(len(line.split()) == 3 and line.endswith(" O") for line in docstarts)
    pasted = tmp_path / "pasted.conll"
    pasted.write_text(
        "".join(f"{line} {line.split()[-1]}\n" if line else "\n" for line in lines), "utf-8"
    )
    from harem_pipeline.pipeline.spans import measure_file
    from harem_pipeline.stages.span_measures import CountOptions

    report = measure_file(pasted, "conll", CountOptions(documents=False), NO_BOOTSTRAP)
    assert report.measures.labelled.exact.f1 == 1.0
    run = tmp_path / "run.xml"
    assert main(["import", str(gold), "--format", "conll", "--cd", str(cd), "-o", str(run)]) == 0


# ---------------------------------------------------------------------------
# Property: export → import preserves the spans

ALPHABET = st.sampled_from(list("abcXY  .,\n&"))
LABELS = st.sampled_from(["PESSOA", "LOCAL", "TEMPO:DATA", "ORGANIZACAO", "OUTRO"])


@st.composite
def documents(draw: st.DrawFn) -> Collection:
    docs = []
    for index in range(draw(st.integers(1, 3))):
        text = "".join(draw(st.lists(ALPHABET, max_size=60))).replace("&", "&amp;")
        cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=8))))
        entities = []
        for start, end in zip(cuts[::2], cuts[1::2], strict=False):
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            inside = [m for m in range(len(text)) if text.startswith("&amp;", m)]
            if start >= end or any(m < x < m + 5 for m in inside for x in (start, end)):
                continue
            label = draw(LABELS)
            cat, _, kind = label.partition(":")
            types = (kind,) if kind else ()
            entities.append(Entity(None, (cat,), types, (), None, text[start:end], start, end))
        docs.append(Document(f"D{index}", text, tuple(entities)))
    return Collection("cd.xml", SECOND_HAREM, "utf-8", tuple(docs))


@settings(derandomize=True, deadline=None, max_examples=150)
@given(documents(), st.sampled_from(["harem-json", "jsonl", "conll", "hf"]), st.booleans())
def test_round_trip_preserves_spans(cd, fmt, types):
    text = "".join(export_text(export_documents(cd, types=types), fmt, "bilou"))
    predictions = list(read_predictions(fmt, io.StringIO(text), "export"))
    run, summary = build_run(cd, predictions)
    assert not summary.warnings

    def spans(collection: Collection) -> list:
        return [
            (d.docid, e.start, e.end, e.categories, e.types if types else ())
            for d in collection.documents
            for e in d.entities
        ]

    def types_of(entity: Entity) -> tuple[str, ...]:
        return entity.types[:1] if types else ()

    if fmt in ("conll", "hf"):  # exactly the entities the token layout wrote
        expected = [
            (doc.docid, start, end, label)
            for doc in export_documents(cd, types=types)
            for start, end, label in conll_layout(doc, sentences=fmt == "conll").entities()
        ]
        got = [  # on the exported text, whose character references are read
            (d.docid, where[e.start], where[e.end], ":".join(e.categories[:1] + types_of(e)))
            for d in run.documents
            for where in [decode_references(d.text)[1]]
            for e in d.entities
        ]
        assert got == expected
    else:
        assert spans(run) == spans(cd)
    assert [d.text for d in run.documents] == [d.text for d in cd.documents]
