"""``--format hf``: the Hugging Face token-classification rows, in export and import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import read_collection

CD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<colHAREM versao="x">\n'
    '<DOC DOCID="D1">\n<P>Disse <EM ID="1" CATEG="PESSOA" TIPO="INDIVIDUAL">W. JAMES</EM> '
    'em <EM ID="2" CATEG="LOCAL" TIPO="HUMANO">Nova Iorque</EM>. Fim.</P>\n</DOC>\n'
    '<DOC DOCID="D2">\n<P>Nada aqui.</P>\n</DOC>\n</colHAREM>\n'
)
ROWS = [
    {
        "id": "D1",
        "tokens": ["Disse", "W", ".", "JAMES", "em", "Nova", "Iorque", ".", "Fim", "."],
        "ner_tags": ["O", "B-PESSOA", "I-PESSOA", "I-PESSOA", "O", "B-LOCAL", "I-LOCAL"]
        + ["O"] * 3,
    },
    {"id": "D2", "tokens": ["Nada", "aqui", "."], "ner_tags": ["O", "O", "O"]},
]


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


def test_export_writes_one_row_per_document(cd: Path, tmp_path: Path) -> None:
    out = tmp_path / "gold.hf.jsonl"
    assert main(["export", str(cd), "--format", "hf", "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert rows == ROWS


@pytest.mark.parametrize("integers", [False, True])
def test_import_reads_tag_names_or_integer_ids_with_their_names(
    cd: Path, tmp_path: Path, integers: bool
) -> None:
    rows = ROWS
    if integers:
        names = ["O", "B-PESSOA", "I-PESSOA", "B-LOCAL", "I-LOCAL"]
        rows = [
            {**r, "ner_tags": [names.index(t) for t in r["ner_tags"]], "tag_names": names}
            for r in ROWS
        ]
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = tmp_path / "run.xml"
    assert main(["import", str(pred), "--format", "hf", "--cd", str(cd), "-o", str(run)]) == 0
    assert entities_of(run) == [("D1", "PESSOA", "W. JAMES"), ("D1", "LOCAL", "Nova Iorque")]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('{"id": "D1", "tokens": ["Disse"], "ner_tags": [0]}', "integer tags without names"),
        ('{"id": "D1", "tokens": ["Disse"], "ner_tags": []}', 'a "ner_tags" list of 1 tags'),
        ('{"tokens": ["Disse"], "ner_tags": ["O"]}', 'expected an "id"'),
        (
            '{"id": "D1", "tokens": ["Disse"], "ner_tags": [3], "tag_names": ["O"]}',
            "expected a tag id between 0 and 0, found 3",
        ),
    ],
)
def test_a_bad_row_is_one_line(
    cd: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, message: str
) -> None:
    pred = tmp_path / "pred.jsonl"
    pred.write_text(row + "\n", encoding="utf-8")
    run = tmp_path / "run.xml"
    assert main(["import", str(pred), "--format", "hf", "--cd", str(cd), "-o", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and "line 1" in err, err
    assert not run.exists()
