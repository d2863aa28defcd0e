"""The reader takes a run of entities of text alone (``formats.harem_xml._Run``) at once:
it must read what the tags it stands for read one by one, errors included, on many
generated documents; and the documents read without their entities (``harem import``)
are the ones read with them, entities aside.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_xml import _decoded_chunks, _open_stream
from tests.helpers.strategies import one_in

# Pieces a document is made of: mostly ones the reader takes, some it does not.
SECOND_GOOD = [
    "a",
    " b ",
    "\n",
    "|",
    "|",
    "&amp;",
    ">",
    '<EM ID="1" CATEG="PESSOA">x</EM>',
    '<EM ID="2" CATEG="A|B" TIPO="t>u">y z</EM>',
    "<EM>w</EM >",
    '<EM\nID="3">v</EM>',
]
SECOND_RISKY = [
    "<EM>a|b</EM>",
    '<EM MORF="M,S">m</EM>',
    '<EM MORF="bad">m</EM>',
    "<EM/>",
    "<EM><EM>n</EM></EM>",
    "<PESSOA>p</PESSOA>",
    "<P>",
    "</P>",
    "<P>q</P>",
    "<OMITIDO>o</OMITIDO>",
    "<!-- c -->",
    "<ALT>",
    "</ALT>",
    "<",
    '<EM ID="4"',
]
FIRST_GOOD = [p.replace("EM", "PESSOA") for p in SECOND_GOOD] + [
    '<LOCAL|ORGANIZACAO TIPO="a">l</LOCAL|ORGANIZACAO>',
]
FIRST_RISKY = [p.replace("EM", "PESSOA") for p in SECOND_RISKY] + ["<TEXTO>t</TEXTO>"]


def alt_content(rng: random.Random, good: list[str], risky: list[str]) -> str:
    """Document content built of text, entities and ALT blocks, now and then a risky piece."""

    def piece() -> str:
        return rng.choice(risky) if one_in(rng, 13) else rng.choice(good)

    def alternative() -> str:
        return "".join(piece() for _ in range(rng.randint(0, 3)))

    def block() -> str:
        return "<ALT>" + "|".join(alternative() for _ in range(rng.randint(1, 3))) + "</ALT>"

    return "".join(block() if one_in(rng, 2) else piece() for _ in range(rng.randint(0, 6)))


def around(rng: random.Random, good: list[str], risky: list[str]) -> str:
    """What comes before and after a document's content: mostly nothing."""
    return alt_content(rng, good, risky) if one_in(rng, 3) else ""


def read(piece: str, entities: bool = True, read_size: int = 1 << 20):
    """The documents of ``piece`` (and each one's and its entities' lines), or its error's
    place and expectation (an excerpt of the file may differ where the file does)."""
    chunks = iter([piece[i : i + read_size] for i in range(0, len(piece), read_size)])
    try:
        stream = _open_stream(chunks, "cd.xml", "utf-8", None, read_size, 7, entities)
        return [(d, d.line, [e.line for e in d.all_entities]) for d in stream.documents]
    except InputError as exc:
        return ("error", exc.line, exc.docid, exc.expected)


def one_by_one(piece: str) -> str:
    """``piece`` with an empty comment before every ``<``: no run of entities is left, and
    the text, offsets and lines are those of ``piece``."""
    return piece.replace("<", "<!----><")


def without_entities(documents):
    """Documents as read with ``entities`` False: no entity, in ALT blocks neither."""
    if not isinstance(documents, list):
        return documents
    return [
        (
            dataclasses.replace(
                d,
                entities=(),
                omitted_entities=(),
                alt_blocks=tuple(
                    dataclasses.replace(b, alternatives=tuple(() for _ in b.alternatives))
                    for b in d.alt_blocks
                ),
            ),
            line,
            [],
        )
        for d, line, _ in documents
    ]


FRAMES = [
    ("second", SECOND_GOOD, SECOND_RISKY, '{}\n<DOC DOCID="d1">{}</DOC>{}'),
    (
        "first",
        FIRST_GOOD,
        FIRST_RISKY,
        "\r\n<DOC>\r\n<DOCID>d1</DOCID>{}\r\n<TEXTO>{}</TEXTO>{}\r\n</DOC>",
    ),
]


@pytest.mark.parametrize(
    ("good", "risky", "frame"), [f[1:] for f in FRAMES], ids=[f[0] for f in FRAMES]
)
# 1,500 documents, each built from a seed (drawing each piece cost hypothesis more than
# reading the document a few times).
@settings(derandomize=True, max_examples=1500, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_runs_read_as_their_tags_one_by_one(good, risky, frame, seed):
    rng = random.Random(seed)
    before, content = around(rng, good, risky), alt_content(rng, good, risky)
    piece = frame.format(before, content, around(rng, good, risky))
    documents = read(piece)
    assert documents == read(one_by_one(piece))
    assert documents == read(piece, read_size=rng.randint(1, 40))
    if not (isinstance(documents, tuple) and "MORF" in documents[3]):
        assert read(piece, entities=False) == without_entities(documents)


@pytest.mark.parametrize(
    "piece",
    [
        '<DOC DOCID="d">a <ALT><EM CATEG="X">b c</EM>|b <EM>c</EM></ALT> d</DOC>',
        '<DOC DOCID="d"><ALT>x|y|z</ALT><ALT>u|<EM>v</EM></ALT></DOC>',
        '<DOC DOCID="d">a</DOC><ALT>|x</ALT>',
        '<ALT>|x</ALT><DOC DOCID="d">a</DOC>',
        '<DOC DOCID="d"><EM ID="4"<ALT>>|</ALT></DOC>',
        '<DOC DOCID="d"><EM ID="4"<ALT>x|y</ALT>></DOC>',
        '<DOC DOCID="d"><ALT<EM>>x|y</ALT></DOC>',
        '<EM ID="1">x</EM><DOC DOCID="d">a</DOC>',
        '<colHAREM><DOC DOCID="d">a</DOC><EM ID="1">x</EM> y</colHAREM>',
        '<DOC DOCID="d"><EM ID="1">x</EM> <PESSOA>y</PESSOA></DOC>',
        '<DOC DOCID="d"><EM ID="1"><EM ID="2">x</EM></EM></DOC>',
        "<DOC>\n<DOCID>d</DOCID>\n<TEXTO>a</TEXTO><ALT>\n|x</ALT>\n</DOC>",
        "<DOC>\n<DOCID>d</DOCID><ALT>\n|x</ALT>\n<TEXTO>a</TEXTO>\n</DOC>",
        "<DOC>\n<DOCID>d</DOCID><PESSOA>p</PESSOA>\n<TEXTO>a</TEXTO>\n</DOC>",
        '<DOC DOCID="d">a <EM\nID="1">b\nc</EM>\n<EM ID="2">d</EM></DOC>',
    ],
)
def test_runs_out_of_place_read_as_their_tags(piece):
    assert read(piece) == read(one_by_one(piece))


def test_a_run_holds_its_entities_lines():
    piece = '<DOC DOCID="d">a <EM\nID="1">b\nc</EM>\n<EM ID="2">d</EM></DOC>'
    [(doc, line, lines)] = read(piece)
    assert (doc.text, line, lines) == ("a b\nc\nd", 7, [7, 10])
    assert [(e.start, e.end) for e in doc.entities] == [(2, 5), (6, 7)]


@pytest.mark.parametrize("quote", ['"', "'"])
@pytest.mark.parametrize(
    "frame",
    [
        '<DOC DOCID="d">a <ALT><EM TIPO={0}a<b{0}>x</EM>|y</ALT></DOC>',
        '<DOC DOCID="d">a <EM TIPO={0}a<b{0}>x</EM> y</DOC>',
        "<DOC>\n<DOCID>d</DOCID>\n<TEXTO>a <ALT><PESSOA TIPO={0}a<b{0}>x</PESSOA>|y</ALT>"
        "</TEXTO>\n</DOC>",
    ],
)
def test_a_value_holding_a_tag_start_is_refused(frame, quote):
    """A ``<`` in an attribute value is a tag inside a value: never a run's."""
    assert read(frame.format(quote))[3] == "a tag after '<'"


def test_a_file_read_without_entities_keeps_only_their_text(tmp_path):
    from harem_pipeline.formats.harem_xml import open_collection

    cd = tmp_path / "cd.xml"
    cd.write_text('<colHAREM><DOC DOCID="d"><P>a <EM ID="1" MORF="bad">b</EM></P></DOC></colHAREM>')
    [doc] = open_collection(cd, entities=False).documents
    assert (doc.text, doc.entities, doc.paragraphs) == ("a b", (), ((0, 3),))
    assert list(_decoded_chunks(cd, "utf-8"))[0].startswith("<colHAREM>")
