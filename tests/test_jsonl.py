"""JSON-lines documents: reading, writing back, and bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.jsonl import JsonlDocument, format_jsonl, parse_jsonl
from harem_pipeline.model import make_span
from harem_pipeline.pipeline.spans import measure_file


def line(**obj) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def test_parse_document_with_vague_and_list_labels() -> None:
    text = line(
        id="d1",
        tokens=["a", "b", "c"],
        gold=[[1, 3, "PESSOA|ORGANIZACAO"], [0, 1, "LOCAL"]],
        system=[[0, 2, ["LOCAL"]]],
    )
    (doc,) = parse_jsonl([text], "f.jsonl")
    assert doc.id == "d1" and doc.line == 1 and doc.tokens == ("a", "b", "c")
    assert doc.gold == (make_span(0, 1, "LOCAL"), make_span(1, 3, "ORGANIZACAO|PESSOA"))
    assert doc.system == (make_span(0, 2, "LOCAL"),)


def test_blank_lines_skipped_and_id_defaults_to_line() -> None:
    docs = list(parse_jsonl(["\n", line(tokens=["x"], gold=[], system=[[0, 1, "A"]])], "f"))
    assert [(d.id, d.line) for d in docs] == [("line 2", 2)]


def test_spec_example_through_a_jsonl_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.jsonl"
    path.write_text(
        line(
            id="spec",
            tokens=list("abcdefghi"),
            gold=[[0, 4, "A"], [6, 8, "B"]],
            system=[[2, 6, "A"], [6, 7, "B"], [7, 9, "A"]],
        )
        + line(
            id="ru",
            tokens="Сергею лазареву в новом клипе".split(),
            gold=[[0, 2, "PER"]],
            system=[[0, 1, "PER"]],
        ),
        encoding="utf-8",
    )
    report = measure_file(path, "jsonl")
    assert (report.documents, report.tokens) == (2, 14)
    m = report.counts.labelled.match
    # spec example: 1.5 of 3 system spans, 1.0 of 2 gold spans; Russian: 1 and 0.5.
    assert m.intersection_system == pytest.approx(1.5 + 1.0)
    assert m.intersection_gold == pytest.approx(1.0 + 0.5)
    assert report.measures.labelled.intersection.precision == pytest.approx(2.5 / 4)
    assert report.measures.labelled.intersection.recall == pytest.approx(1.5 / 3)
    assert report.scheme is None
    assert "scheme" not in report.signature.format()


@st.composite
def documents(draw):
    docs = []
    for k in range(draw(st.integers(0, 4))):
        n = draw(st.integers(1, 8))
        sides = []
        for _ in range(2):
            spans = set()
            for _ in range(draw(st.integers(0, 4))):
                start = draw(st.integers(0, n - 1))
                end = draw(st.integers(start + 1, n))
                label = draw(st.sampled_from(["PER", "LOC", "PER|LOC", "É"]))
                spans.add(make_span(start, end, label))
            sides.append(tuple(sorted(spans, key=lambda s: (s[0], s[1], sorted(s[2])))))
        tokens = tuple(draw(st.text(min_size=1, max_size=3)) for _ in range(n))
        docs.append(JsonlDocument(f"d{k}", k + 1, tokens, sides[0], sides[1]))
    return docs


@settings(derandomize=True, deadline=None, max_examples=100)
@given(documents())
def test_parse_of_format_is_identity_and_format_is_idempotent(docs) -> None:
    text = format_jsonl(docs)
    # read as a file is read: only "\n" ends a line (not U+0085 or U+2028)
    back = list(parse_jsonl(io.StringIO(text), "f"))
    assert back == docs
    assert format_jsonl(back) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"id": "a", "tokens": []\n',
            "f.jsonl, line 1: expected a JSON object, found invalid JSON",
        ),
        ("[1, 2]\n", "f.jsonl, line 1: expected a JSON object, found list"),
        (
            line(id="a", tokens=["x", "y"], gold=[[1, 3, "PER"]], system=[]),
            "f.jsonl, line 1, document a: expected a span [start, end, label] with "
            '0 <= start < end <= 2 and a non-empty label, found [1, 3, "PER"]',
        ),
        (
            line(id="b", tokens=["x", "y"], gold=[], system=[[1, 1, "PER"]]),
            "f.jsonl, line 1, document b: expected a span [start, end, label]",
        ),
        (
            line(id="c", tokens=["x"], gold=[[-1, 1, "PER"]], system=[]),
            "f.jsonl, line 1, document c: expected a span",
        ),
        (line(id="d", tokens=["x"], gold=[[0, 1, ""]], system=[]), "document d: expected a span"),
        (
            line(id="e", tokens=["x"], gold=[[0, True, "A"]], system=[]),
            "document e: expected a span",
        ),
        (line(id="f", tokens=["x"], system=[]), 'document f: expected a "gold" list of spans'),
        (line(id="g", gold=[], system=[]), 'document g: expected a "tokens" list'),
    ],
)
def test_bad_input_is_one_line_input_error(text: str, message: str) -> None:
    lines = [line(id="ok", tokens=["x"], gold=[], system=[]), text]
    with pytest.raises(InputError) as exc:
        list(parse_jsonl(lines, "f.jsonl"))
    rendered = str(exc.value)
    assert message.replace("line 1", "line 2") in rendered
    assert "\n" not in rendered
