"""``harem import``: model predictions (harem-json, conll, jsonl) in, a HAREM run out."""

from __future__ import annotations

import io
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_json import CharDocument, CharEntity
from harem_pipeline.formats.harem_xml import format_collection, read_collection
from harem_pipeline.model import FIRST_HAREM, SECOND_HAREM, Document, Entity
from harem_pipeline.tools.predictions import (
    build_run,
    collection_documents,
    open_predictions,
    run_import,
)
from harem_pipeline.tools.predictions.chars import align_dense
from harem_pipeline.tools.predictions.labels import Label, parse_label
from harem_pipeline.tools.predictions.merge import Prediction, read_predictions
from harem_pipeline.tools.predictions.placing import ImportSummary, Placed, place_char_document
from harem_pipeline.tools.predictions.writer import run_entity
from tests.helpers.predictions import D1_TEXT, D2_TEXT, identification, write_tiny_cd
from tests.helpers.shipped import shipped_collection

DATA = Path(__file__).resolve().parent.parent / "data"
SAMPLE = DATA / "model-formats"
SAMPLE_CD = DATA / "lampada2" / "CDPrimeiroHAREMprimeiroevento.xml.gz"
COLLECTIONS = [
    DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
    DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
    DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz",
    SAMPLE_CD,
]


def entities(run: Path) -> list[tuple[str, str, str, str]]:
    """(DOCID, text, CATEG, TIPO) of every entity of a run."""
    return [
        (doc.docid, e.text, "|".join(e.categories), "|".join(e.types))
        for doc in read_collection(run).documents
        for e in doc.entities
    ]


def import_main(tmp_path: Path, pred: Path, fmt: str, cd: Path, *extra: str) -> int:
    return main(
        [
            "import",
            str(pred),
            "--format",
            fmt,
            "--cd",
            str(cd),
            "-o",
            str(tmp_path / "run.xml"),
            *extra,
        ]
    )


# ---------------------------------------------------------------------------
# The real sample (BERTimbau's First HAREM dev split)


@pytest.fixture(scope="module")
def sample_cd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 8 documents of the sample, cut from the collection it was made from."""
    full = shipped_collection(SAMPLE_CD)
    ids = [doc["doc_id"] for doc in json.loads((SAMPLE / "FirstHAREM-total-dev.json").read_text())]
    subset = replace(full, documents=tuple(full.document(i) for i in ids))
    path = tmp_path_factory.mktemp("sample") / "cd.xml"
    path.write_text(format_collection(subset), encoding=subset.encoding, newline="")
    return path


@pytest.mark.parametrize(("name", "count"), [("total", 233), ("selective", 167)])
def test_sample_imports_against_its_collection(tmp_path, sample_cd, name, count, capsys):
    pred = SAMPLE / f"FirstHAREM-{name}-dev.json"
    assert import_main(tmp_path, pred, "harem-json", sample_cd) == 0
    err = capsys.readouterr().err
    assert f"{count} entities imported, 0 dropped" in err
    found = entities(tmp_path / "run.xml")
    expected = [
        (doc["doc_id"], e["text"].strip(), e["label"], "")
        for doc in json.loads(pred.read_text())
        for e in doc["entities"]
    ]
    # Two documents' texts differ from the collection's (a blank; '&amp;amp;' written
    # '&amp;'): every entity still lands on the same characters, blanks around it trimmed.
    assert found == expected
    cd = read_collection(sample_cd)
    run = read_collection(tmp_path / "run.xml")
    assert [d.text for d in run.documents] == [d.text for d in cd.documents]


def test_sample_scores_what_the_exported_collection_scores(tmp_path, sample_cd):
    """The sample is the collection's gold (one ALT alternative, one category kept):
    imported, it scores what the collection exported by us and imported back scores."""
    assert import_main(tmp_path, SAMPLE / "FirstHAREM-total-dev.json", "harem-json", sample_cd) == 0
    sample = identification(sample_cd, tmp_path / "run.xml", tmp_path / "sample")
    exported = tmp_path / "export.json"
    assert main(["export", str(sample_cd), "--format", "harem-json", "-o", str(exported)]) == 0
    run = tmp_path / "exported.xml"
    assert (
        main(
            [
                "import",
                str(exported),
                "--format",
                "harem-json",
                "--cd",
                str(sample_cd),
                "-o",
                str(run),
            ]
        )
        == 0
    )
    ours = identification(sample_cd, run, tmp_path / "ours")
    assert sample == ours
    assert sample["precisao"] == sample["abrangencia"] == sample["medida_f"] == 1.0


# ---------------------------------------------------------------------------
# One logic, two ways in


@pytest.mark.parametrize("cd", COLLECTIONS, ids=lambda p: p.name)
def test_collection_streamed_like_read_collection(cd):
    full = read_collection(cd)
    info, documents = collection_documents(cd)
    documents = list(documents)
    assert (info.format, info.encoding, info.newline, info.root) == (
        full.format,
        full.encoding,
        full.newline,
        full.root,
    )
    assert [(d.docid, d.text, d.paragraphs, d.variant, d.genre, d.line) for d in documents] == [
        (d.docid, d.text, d.paragraphs, d.variant, d.genre, d.line) for d in full.documents
    ]


@pytest.mark.parametrize("cd", COLLECTIONS[:3], ids=lambda p: p.name)
def test_streamed_run_is_format_collection_of_build_run(tmp_path, cd):
    exported = tmp_path / "gold.conll"
    assert main(["export", str(cd), "--format", "conll", "--alt", "best", "-o", str(exported)]) == 0
    out, summary = run_import(exported, "conll", cd, tmp_path / "run.xml")
    collection = read_collection(cd)
    with open_predictions(exported) as handle:
        run, built = build_run(collection, list(read_predictions("conll", handle, str(exported))))
    assert out.read_bytes() == format_collection(run).encode(collection.encoding)
    assert (summary.entities, summary.documents) == (built.entities, built.documents)


# ---------------------------------------------------------------------------
# Hand-made files, one per format and per tag scheme


HAREM_JSON = [
    {
        "doc_id": "D1",
        "doc_text": D1_TEXT,
        "entities": [
            {"start_offset": 2, "end_offset": 13, "label": "PESSOA:INDIVIDUAL"},
            {"start_offset": 20, "end_offset": 26, "label": "LOCAL"},
            {"start_offset": 30, "end_offset": 34, "label": "TEMPO_TEMPO_CALEND"},
        ],
    },
    {
        "doc_id": "D2",
        "doc_text": D2_TEXT,
        "entities": [{"start_offset": 2, "end_offset": 16, "label": "ORGANIZACAO-EMPRESA"}],
    },
]
EXPECTED = [
    ("D1", "Maria Silva", "PESSOA", "INDIVIDUAL"),
    ("D1", "Lisboa", "LOCAL", ""),
    ("D1", "1992", "TEMPO", "TEMPO_CALEND"),
    ("D2", "Banco AT&amp;T", "ORGANIZACAO", "EMPRESA"),
]


def test_harem_json_by_hand(tmp_path):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(HAREM_JSON))
    assert import_main(tmp_path, pred, "harem-json", cd) == 0
    assert entities(tmp_path / "run.xml") == EXPECTED
    # the paragraphs of D2 are kept around the entity
    assert '<P>O <EM ID="D2-1"' in (tmp_path / "run.xml").read_text()


def test_jsonl_by_hand(tmp_path):
    cd = write_tiny_cd(tmp_path)
    lines = [
        {
            "id": doc["doc_id"],
            "text": doc["doc_text"],
            "spans": [
                {"start": e["start_offset"], "end": e["end_offset"], "label": e["label"]}
                for e in doc["entities"]
            ],
        }
        for doc in HAREM_JSON
    ]
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert import_main(tmp_path, pred, "jsonl", cd) == 0
    assert entities(tmp_path / "run.xml") == EXPECTED


CONLL_TAGS = {
    # Maria Silva foi a Lisboa em 1992 . / O Banco AT&T abriu .
    "iob1": ["O", "I-P", "I-P", "O", "O", "I-L", "O", "I-T", "O", "O", "I-O", "I-O", "O", "O"],
    "iob2": ["O", "B-P", "I-P", "O", "O", "B-L", "O", "B-T", "O", "O", "B-O", "I-O", "O", "O"],
    "ioe1": ["O", "I-P", "I-P", "O", "O", "I-L", "O", "I-T", "O", "O", "I-O", "I-O", "O", "O"],
    "ioe2": ["O", "I-P", "E-P", "O", "O", "E-L", "O", "E-T", "O", "O", "I-O", "E-O", "O", "O"],
    "iobes": ["O", "B-P", "E-P", "O", "O", "S-L", "O", "S-T", "O", "O", "B-O", "E-O", "O", "O"],
    "bilou": ["O", "B-P", "L-P", "O", "O", "U-L", "O", "U-T", "O", "O", "B-O", "L-O", "O", "O"],
}
TOKENS = [
    "A",
    "Maria",
    "Silva",
    "foi",
    "a",
    "Lisboa",
    "em",
    "1992",
    ".",
    "O",
    "Banco",
    "AT&T",
    "abriu",
    ".",
]
LABELS = {"P": "PESSOA", "L": "LOCAL", "T": "TEMPO", "O": "ORGANIZACAO"}


def conll_text(scheme: str, named: str = "docstart") -> str:
    tags = [t if t == "O" else f"{t[:2]}{LABELS[t[2:]]}" for t in CONLL_TAGS[scheme]]
    rows = [f"{tok} _ {tag}\n" for tok, tag in zip(TOKENS, tags, strict=True)]
    head = {
        "docstart": ("-DOCSTART- D1\n\n", "-DOCSTART- D2\n\n"),
        "comment": ("# doc_id = D1\n", "# doc_id = D2\n"),
        "unnamed": ("-DOCSTART- -X- O\n\n", "-DOCSTART- -X- O\n\n"),
        "none": ("", "\n"),
    }[named]
    return (
        head[0]
        + "".join(rows[:9])
        + "\n"
        + head[1]
        + "".join(rows[9:12])
        + "\n"
        + "".join(rows[12:])
    )


@pytest.mark.parametrize("scheme", list(CONLL_TAGS))
def test_conll_by_hand_every_scheme(tmp_path, scheme, capsys):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.conll"
    pred.write_text(conll_text(scheme))
    assert import_main(tmp_path, pred, "conll", cd, "--scheme", scheme) == 0
    assert [e[:3] for e in entities(tmp_path / "run.xml")] == [e[:3] for e in EXPECTED]
    # the token AT&T stands for the text's AT&amp;T; no sequence breaks its own scheme
    assert "broke the tagging scheme" not in capsys.readouterr().err


@pytest.mark.parametrize("named", ["comment", "unnamed", "none"])
def test_conll_documents_named_or_in_order(tmp_path, named):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.conll"
    pred.write_text(conll_text("iob2", named))
    assert import_main(tmp_path, pred, "conll", cd) == 0
    assert [e[:3] for e in entities(tmp_path / "run.xml")] == [e[:3] for e in EXPECTED]


def test_scheme_breaks_are_counted(tmp_path, capsys):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.conll"
    pred.write_text(conll_text("iob1"))
    assert import_main(tmp_path, pred, "conll", cd, "--scheme", "iob2") == 0
    assert "4 tag sequences broke the tagging scheme" in capsys.readouterr().err


def test_absent_documents_are_written_bare_and_counted(tmp_path, capsys):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(HAREM_JSON[1:]))
    assert import_main(tmp_path, pred, "harem-json", cd) == 0
    assert "2 documents (1 predicted, 1 absent" in capsys.readouterr().err
    run = read_collection(tmp_path / "run.xml")
    assert [d.docid for d in run.documents] == ["D1", "D2"]
    assert run.documents[0].text == D1_TEXT and not run.documents[0].entities


def test_predictions_out_of_order(tmp_path):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(HAREM_JSON[::-1]))
    assert import_main(tmp_path, pred, "harem-json", cd) == 0
    assert entities(tmp_path / "run.xml") == EXPECTED


def test_first_harem_collection_gets_first_harem_tags(tmp_path):
    cd = tmp_path / "cd.txt"
    cd.write_bytes(
        b"<DOC>\r\n<DOCID>F1</DOCID>\r\n"
        b'<TEXTO>A <PESSOA TIPO="INDIVIDUAL">Ana</PESSOA> viu.\r\n</TEXTO>\r\n</DOC>\r\n'
    )
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        json.dumps(
            {
                "id": "F1",
                "text": "A Ana viu.",
                "spans": [{"start": 2, "end": 5, "label": "PESSOA:INDIVIDUAL"}],
            }
        )
        + "\n"
    )
    out, _ = run_import(pred, "jsonl", cd)
    assert out == tmp_path / "pred.run.txt"
    assert b'<PESSOA TIPO="INDIVIDUAL">Ana</PESSOA>' in out.read_bytes()
    assert b"\r\n" in out.read_bytes()


# ---------------------------------------------------------------------------
# Offsets on a text that differs


def place(cd_text: str, pred_text: str | None, spans: list[tuple[int, int, str]]):
    doc = read_collection_doc(cd_text)
    summary = ImportSummary()
    pred = CharDocument("D", pred_text, tuple(CharEntity(s, e, label) for s, e, label in spans))
    placed = place_char_document(doc, pred, summary)
    return [doc.text[p.start : p.end] for p in placed], summary


def read_collection_doc(text: str):
    from harem_pipeline.model import Document

    return Document("D", text)


def test_offsets_on_a_text_that_differs_by_white_space():
    cd_text = "O Rio de\nJaneiro fica  no Brasil."
    pred_text = "O  Rio de Janeiro fica no Brasil. "
    found, summary = place(cd_text, pred_text, [(3, 17, "LOCAL"), (26, 32, "LOCAL")])
    assert found == ["Rio de\nJaneiro", "Brasil"]
    assert not summary.warnings


def test_leading_and_trailing_blanks_are_trimmed():
    found, _ = place("Vi a Ana hoje.", None, [(4, 9, "PESSOA")])
    assert found == ["Ana"]


def test_entity_on_text_the_collection_lacks_is_dropped_with_a_warning():
    cd_text = "A Maria viu o Porto e Braga."
    pred_text = "A Maria viu [NOVO TEXTO] o Porto e Braga."
    found, summary = place(
        cd_text,
        pred_text,
        [(2, 7, "PESSOA"), (13, 23, "OBRA"), (27, 32, "LOCAL"), (35, 40, "LOCAL")],
    )
    assert found == ["Maria", "Porto", "Braga"]
    assert summary.dropped == {"not in the collection's text": 1}
    assert "OBRA 'NOVO TEXTO' at 13..23" in summary.warnings[0]


def test_dropped_character_and_reference():
    found, _ = place(
        "O Banco AT&amp;amp;T e a Ana.",
        "O Banco AT&amp;T e a Aa.",
        [(2, 16, "ORGANIZACAO"), (21, 23, "PESSOA")],
    )
    assert found == ["Banco AT&amp;amp;T", "Ana"]


def test_boundary_inside_a_reference_moves_out():
    found, _ = place("AT&amp;T", None, [(0, 4, "ORGANIZACAO")])
    assert found == ["AT&amp;"]


def test_alignment_is_right_on_long_texts():
    rng = random.Random(7)
    words = [
        "".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 8))) for _ in range(60000)
    ]
    target = " ".join(words)
    source = list(target)
    for position in range(500, len(source), 997):  # a changed character every ~1,000
        source[position] = "#"
    source = "".join(source).replace(" ", "")
    dense = target.replace(" ", "")
    alignment = align_dense(source, dense)
    matched = sum(n for _, _, n in alignment.blocks)
    assert matched > 0.99 * len(dense)
    assert all(source[i : i + n] == dense[j : j + n] for i, j, n in alignment.blocks)


# ---------------------------------------------------------------------------
# Labels


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("PESSOA", Label(("PESSOA",))),
        ("PESSOA:INDIVIDUAL", Label(("PESSOA",), ("INDIVIDUAL",))),
        ("LOCAL-HUMANO-PAIS", Label(("LOCAL",), ("HUMANO",), ("PAIS",))),
        ("TEMPO_TEMPO_CALEND", Label(("TEMPO",), ("TEMPO_CALEND",))),
        ("LOCAL|ORGANIZACAO", Label(("LOCAL", "ORGANIZACAO"))),
        ("VARIADO:OUTRO", Label(("VARIADO",), ("OUTRO",))),
        ("B-PER", Label(("B-PER",))),  # not a HAREM category: not split
        ("PER", Label(("PER",))),
    ],
)
def test_labels(label, expected):
    assert parse_label(label) == expected


@pytest.mark.parametrize(
    "label",
    ["PESSOA", "PESSOA:INDIVIDUAL", "LOCAL-HUMANO-PAIS", "LOCAL|ORGANIZACAO", "B-PER"],
)
@pytest.mark.parametrize("fmt", [SECOND_HAREM, FIRST_HAREM])
def test_run_entities_are_those_entity_checks_and_fills_in(label, fmt):
    """A run's entity is built without ``Entity``'s checks: built with them, it is equal."""
    doc = Document(docid="D1", text="O Rio de Janeiro.")
    built = run_entity(doc, 3, Placed(2, 16, parse_label(label)), fmt)
    parsed = parse_label(label)
    ident = None if fmt == FIRST_HAREM else "D1-3"
    checked = Entity(ident, *parsed, None, "Rio de Janeiro", 2, 16)
    assert built == checked
    assert (built.attributes, built.tag) == (checked.attributes, checked.tag)


# ---------------------------------------------------------------------------
# Bad files: one line, exit 2, no output left behind


BAD = {
    "unknown DOCID": (
        "harem-json",
        json.dumps([{"doc_id": "D9", "doc_text": "x", "entities": []}]),
        "D9",
    ),
    "past the text": (
        "harem-json",
        json.dumps(
            [
                {
                    "doc_id": "D1",
                    "doc_text": "abc",
                    "entities": [{"start_offset": 1, "end_offset": 9, "label": "X"}],
                }
            ]
        ),
        "1..9",
    ),
    "reversed": (
        "jsonl",
        json.dumps({"id": "D1", "text": "abc", "spans": [{"start": 2, "end": 1, "label": "X"}]})
        + "\n",
        "2..1",
    ),
    "overlapping": (
        "harem-json",
        json.dumps(
            [
                {
                    "doc_id": "D1",
                    "doc_text": D1_TEXT,
                    "entities": [
                        {"start_offset": 2, "end_offset": 13, "label": "PESSOA"},
                        {"start_offset": 8, "end_offset": 17, "label": "LOCAL"},
                    ],
                }
            ]
        ),
        "overlap",
    ),
    "token not in the text": (
        "conll",
        "-DOCSTART- D1\n\nA O\nMaria B-PESSOA\nSouza I-PESSOA\n",
        "'Souza'",
    ),
    "bad JSON": ("harem-json", '[{"doc_id": "D1", "doc_text": "abc",\n "entities": [}]', "line 2"),
    "not a list": ("harem-json", '{"doc_id": "D1"}', "a JSON list"),
    "one column": ("conll", "-DOCSTART- D1\n\nA\n", "2 columns"),
    "twice": ("jsonl", '{"id": "D1", "text": "a"}\n{"id": "D1", "text": "a"}\n', "D1"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_files(tmp_path, case, capsys):
    fmt, content, shown = BAD[case]
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.in"
    pred.write_text(content)
    before = set(tmp_path.iterdir())
    assert import_main(tmp_path, pred, fmt, cd) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("harem import: error: ")
    assert str(pred) in err and shown in err
    assert set(tmp_path.iterdir()) == before  # no run, no temporary


def test_token_error_names_line_docid_and_text(tmp_path, capsys):
    cd = write_tiny_cd(tmp_path)
    pred = tmp_path / "pred.conll"
    pred.write_text(BAD["token not in the text"][1])
    assert import_main(tmp_path, pred, "conll", cd) == 2
    err = capsys.readouterr().err
    assert "line 5, document D1" in err and "'Silva foi a Lisboa" in err


def test_prediction_records_in_memory():
    """build_run takes predictions built in code (the pipeline's way in)."""
    cd = read_collection_text()
    pred = CharDocument("D1", None, (CharEntity(2, 13, "PESSOA"),))
    run, summary = build_run(cd, [Prediction("D1", 1, pred)])
    assert [e.text for d in run.documents for e in d.entities] == ["Maria Silva"]
    assert (summary.predicted, summary.absent) == (1, 1)


def read_collection_text():
    from harem_pipeline.formats.harem_xml import parse_collection
    from tests.helpers.predictions import TINY_CD

    return parse_collection(TINY_CD, "cd.xml", "utf-8")


def test_jsonl_reader_streams_lines():
    docs = list(
        read_predictions(
            "jsonl",
            io.StringIO('{"doc_id": "A", "doc_text": "x y", "entities": []}\n\n{"id": 7}\n'),
        )
    )
    assert [(d.docid, d.line) for d in docs] == [("A", 1), ("7", 3)]


@pytest.mark.parametrize("documents_before", [0, 1, 3])
def test_a_broken_collection_names_file_lines(tmp_path, documents_before, capsys):
    """Lines in an error about the collection count from the file's start, not from the
    start of the document the importer reads it in (the first document is read apart)."""
    good = "".join(
        f'<DOC DOCID="d{k}">\n<P>Uma frase.</P>\n</DOC>\n' for k in range(documents_before)
    )
    cd = tmp_path / "cd.xml"
    cd.write_text(
        f'<colHAREM versao="x">\n{good}<DOC DOCID="bad">\n<P>Outra.\n</DOC>\n</colHAREM>\n'
    )
    opened = 3 + 3 * documents_before
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": "d0", "text": "Uma frase.", "spans": []}\n')
    before = set(tmp_path.iterdir())
    assert import_main(tmp_path, pred, "jsonl", cd) == 2
    err = capsys.readouterr().err
    assert err == (
        f"harem import: error: {cd}, line {opened + 1}, document bad: "
        f"expected </P> (opened line {opened}), found </DOC>\n"
    )
    assert set(tmp_path.iterdir()) == before
