"""The aligner's plain path: documents cut as written, then aligned where they are parsed.

``split_documents`` cuts a plain Second HAREM file into its documents as
written and ``parse_raw_document`` parses one (the items read straight from
the tags are held to the general tree in ``tests/test_align_flat.py``).
Each must give what the general way gives, or decline (and then
the general way runs, errors included): checked on every shipped collection
and on generated documents that mix the plain shape with everything past
it (character references, CR, empty elements, nesting the plain reading
does not take, broken tags).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_xml import (
    NotPlainCollection,
    open_collection,
    parse_raw_document,
    read_collection,
    split_documents,
)
from harem_pipeline.pipeline import align as align_steps
from harem_pipeline.pipeline.align import run_align
from harem_pipeline.text.textio import detect_file_encoding
from tests.helpers.align_documents import PLAIN_FILES, SECOND_CD, SECOND_RUN, bodies
from tests.helpers.paths import DATA


def _without_metadata(doc):
    import dataclasses

    return dataclasses.replace(doc, variant=None, genre=None)


@pytest.mark.parametrize("path", PLAIN_FILES, ids=lambda p: p.name)
def test_plain_files_split_into_the_documents_the_reader_reads(path: Path) -> None:
    encoding = detect_file_encoding(path)
    raws = list(split_documents(path, encoding, read_size=4096))
    documents = [_without_metadata(doc) for doc in open_collection(path).documents]
    assert [parse_raw_document(raw, str(path)) for raw in raws] == documents
    assert [raw.line for raw in raws] == [doc.line for doc in documents]


@pytest.mark.parametrize(
    "path",
    [DATA / "first-harem" / "ColeccaoDouradaHAREM.txt", DATA / "campaign" / "sim-average.txt.gz"],
    ids=lambda p: p.name,
)
def test_first_harem_files_are_not_plain(path: Path) -> None:
    with pytest.raises(NotPlainCollection):
        list(split_documents(path, detect_file_encoding(path)))


_DOCS = '<DOC DOCID="a"><P>O <EM ID="1" CATEG="LOCAL">Porto</EM>.</P></DOC>\n<DOC DOCID="b">x</DOC>'
_EDITS = [
    ("", ""),  # plain
    ('<DOC DOCID="b"', '<!-- c --><DOC DOCID="b"'),
    ('<DOC DOCID="b">', '<DOC  DOCID="b">'),
    ('DOCID="b"', 'DOCID="a"'),
    ("x</DOC>", "x"),
    ("x</DOC>", 'x<DOC DOCID="c">y</DOC>'),
    ("Porto", "Porto<!-- c -->"),
    ("Porto", "Porto<?pi?>"),
    ('\n<DOC DOCID="b"', '\n<!-- two\nlines -->\n<DOC DOCID="b"'),
    ('\n<DOC DOCID="b"', '\n<!-- unclosed <DOC DOCID="b"'),
]


_PLAIN_TEXTS = [
    f"<colHAREM>\n{_DOCS}\n</colHAREM>",
    f"{_DOCS}\n",  # no root
    f"<?xml version='1.0'?><colHAREM>{_DOCS}</colHAREM>",
    f"<colHAREM>{_DOCS}</colHAREM>\n<!-- the end -->\n",
    f"<colHAREM>{_DOCS}<!-- c --></colHAREM><!-- c -->",
    f"<colHAREM>\n{_DOCS.replace(_EDITS[1][0], _EDITS[1][1])}\n</colHAREM>",
    f"<colHAREM>\n{_DOCS.replace(_EDITS[8][0], _EDITS[8][1])}\n</colHAREM>",
]


def _split_as_the_reader_reads(path: Path, read_size: int) -> None:
    raws = list(split_documents(path, "utf-8", read_size))
    documents = list(read_collection(path).documents)
    assert [parse_raw_document(raw, str(path)) for raw in raws] == documents
    assert [raw.line for raw in raws] == [doc.line for doc in documents]


@pytest.mark.parametrize(
    "text",
    [
        *(f"<colHAREM>\n{_DOCS.replace(old, new)}\n</colHAREM>" for old, new in _EDITS if old),
        *_PLAIN_TEXTS,
        f"<colHAREM>{_DOCS}</colHAREM> trailing",
        f"<colHAREM>{_DOCS}</colHAREM><P/>",
        f"<colHAREM>{_DOCS}",
        f"<colHAREM>{_DOCS}</COL>",
        f'<colHAREM>text<DOC DOCID="z"></DOC>{_DOCS}</colHAREM>',
        "",
        "<colHAREM></colHAREM>",
    ],
)
@pytest.mark.parametrize("read_size", [1, 7, 1 << 20])
def test_a_file_is_split_as_the_reader_reads_it_or_declined(
    tmp_path: Path, text: str, read_size: int
) -> None:
    path = tmp_path / "c.xml"
    path.write_text(text, "utf-8")
    try:
        _split_as_the_reader_reads(path, read_size)
    except NotPlainCollection:
        pass


@pytest.mark.parametrize("text", _PLAIN_TEXTS)
@pytest.mark.parametrize("read_size", [1, 7, 1 << 20])
def test_a_plain_file_is_split_in_any_read_size(tmp_path: Path, text: str, read_size: int) -> None:
    """Read a byte (or a few) at a time, every tag and line end is cut somewhere."""
    path = tmp_path / "c.xml"
    path.write_text(text, "utf-8")
    _split_as_the_reader_reads(path, read_size)


# --- whole files: the plain way writes what the general way writes ---------------


def _refused(path: object) -> None:
    raise NotPlainCollection("the general way, for comparison")


def _aligned(cd: Path, run: Path, target: Path, general: bool) -> object:
    """``run_align``'s bytes and warnings, or its error (the general way only, if asked)."""
    with pytest.MonkeyPatch.context() as patch:
        if general:
            patch.setattr(align_steps, "open_plain_collection", _refused)
        try:
            _, written = run_align(cd, run, target, workers=1)
        except InputError as error:
            assert not target.exists()
            return str(error)
    return target.read_bytes(), written.warnings


@settings(derandomize=True, deadline=None, max_examples=60)
@given(
    st.lists(bodies(4), min_size=1, max_size=3),
    st.lists(bodies(4), min_size=1, max_size=3),
)
def test_run_align_writes_what_the_general_way_writes(
    tmp_path_factory: pytest.TempPathFactory, cd_bodies: list[str], run_bodies: list[str]
) -> None:
    folder = tmp_path_factory.mktemp("plain")
    for name, texts in (("cd.xml", cd_bodies), ("run.xml", run_bodies)):
        docs = "".join(f'<DOC DOCID="D{i}">{b}</DOC>\n' for i, b in enumerate(texts))
        (folder / name).write_text(f"<colHAREM>\n{docs}</colHAREM>\n", "utf-8")
    cd, run = folder / "cd.xml", folder / "run.xml"
    general = _aligned(cd, run, folder / "general.alinhado", True)
    assert _aligned(cd, run, folder / "plain.alinhado", False) == general


def test_a_file_found_not_plain_midway_is_aligned_the_general_way(tmp_path: Path) -> None:
    """A comment after some documents were aligned: the general way starts again, same bytes."""
    text = read_collection(SECOND_RUN)
    raw = gzip.decompress(SECOND_RUN.read_bytes())
    cut = raw.index(b"<DOC ", len(raw) // 2)
    run = tmp_path / "run.xml"
    run.write_bytes(raw[:cut] + b"<!-- a comment -->\n" + raw[cut:])
    assert text.documents == read_collection(run).documents
    plain = _aligned(SECOND_CD, run, tmp_path / "plain.alinhado", False)
    assert plain == _aligned(SECOND_CD, run, tmp_path / "general.alinhado", True)
