"""spaCy's ``DocBin`` (``.spacy``): the binary corpus ``spacy train`` reads and a
pipeline's ``nlp.pipe`` output is saved as.

Reading, each ``Doc`` is one document: its text, its ``ents`` (character
offsets and ``label_``), and its DOCID from ``user_data["doc_id"]`` (as this
module writes it).  A DocBin whose Docs carry no DOCID fills the collection's
documents in order, as ``nlp.pipe(texts)`` over the collection's texts gives
them.

Writing, each document is one ``Doc`` whose words are the export's tokens and
whose white space is kept the way spaCy keeps it: one space after a token is
that token's trailing space, any other white space is a white-space token.  So
``doc.text`` is the document's text character for character, every entity is a
span of whole tokens, and the export's sentence cuts are the Docs' sentence
starts.

spaCy is an optional extra (``pip install 'harem-pipeline[spacy]'``); without
it, reading or writing a DocBin is one error line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_json import CharDocument, CharEntity
from harem_pipeline.text import PathLike

INSTALL = "spaCy installed (pip install 'harem-pipeline[spacy]') to read or write a DocBin"


def _spacy(path: str | None) -> Any:
    """The ``spacy`` module, or the one line saying how to get it."""
    try:
        import spacy
        from spacy.tokens import DocBin  # noqa: F401  (the submodule the callers use)
    except ImportError:
        raise InputError(path, INSTALL, "no spaCy in this Python") from None
    return spacy


def read_docbin(path: PathLike) -> Iterator[CharDocument | tuple[None, CharDocument]]:
    """The documents of a DocBin in file order; a Doc without a DOCID comes as
    ``(None, document)`` (the next collection document), with one as a ``CharDocument``.

    ``CharDocument.line`` is the Doc's position in the file (1 for the first).
    """
    name = str(path)
    spacy = _spacy(name)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        docs = list(spacy.tokens.DocBin().from_bytes(data).get_docs(spacy.blank("xx").vocab))
    except OSError as exc:
        raise InputError(name, "a readable DocBin file", exc.strerror or str(exc)) from None
    except (
        Exception
    ) as exc:  # msgpack/zlib/ValueError: whatever spaCy raises on bytes that are not one
        raise InputError(name, "a spaCy DocBin (.spacy)", f"unreadable bytes ({exc})") from None
    for index, doc in enumerate(docs, 1):
        entities = tuple(CharEntity(e.start_char, e.end_char, e.label_, e.text) for e in doc.ents)
        docid = doc.user_data.get("doc_id") if doc.user_data else None
        if docid is not None and (not isinstance(docid, str) or not docid.strip()):
            raise InputError(
                name, 'a "doc_id" string in each Doc\'s user_data', repr(docid), line=index
            )
        document = CharDocument(docid.strip() if docid else "", doc.text, entities, index)
        yield document if docid else (None, document)


@dataclass(frozen=True, slots=True)
class DocLayout:
    """One document to write: DOCID, text, tokens (character offsets), the index of
    each sentence's last token, and entities as token spans (``lo``, ``hi`` exclusive)."""

    docid: str
    text: str
    tokens: Sequence[tuple[int, int]]
    ends: Sequence[int]
    spans: Sequence[tuple[int, int, str]]


def docbin_bytes(documents: Iterable[DocLayout], path: str | None = None) -> bytes:
    """The DocBin of ``documents`` (see the module docstring for the words it makes)."""
    spacy = _spacy(path)
    vocab = spacy.blank("xx").vocab
    out = spacy.tokens.DocBin(store_user_data=True)
    for layout in documents:
        out.add(_doc(spacy, vocab, layout))
    return out.to_bytes()


def _doc(spacy: Any, vocab: Any, layout: DocLayout) -> Any:
    words, spaces, where = _words(layout.text, layout.tokens)
    starts = {where[end + 1] for end in layout.ends if end + 1 < len(where)}
    sent_starts = [i == 0 or (i in starts) for i in range(len(words))] if words else None
    doc = spacy.tokens.Doc(vocab, words=words, spaces=spaces, sent_starts=sent_starts)
    doc.ents = [
        spacy.tokens.Span(doc, where[lo], where[hi - 1] + 1, label=label)
        for lo, hi, label in layout.spans
    ]
    doc.user_data["doc_id"] = layout.docid
    return doc


def _words(text: str, tokens: Sequence[tuple[int, int]]) -> tuple[list[str], list[bool], list[int]]:
    """spaCy's words and trailing spaces for ``tokens`` of ``text``, and each token's word
    index: a gap of one space is the word before's trailing space, anything else
    (line ends, tabs, runs of spaces, the text's start) white-space words."""
    words: list[str] = []
    spaces: list[bool] = []
    where: list[int] = []
    pos = 0
    for start, end in [*tokens, (len(text), len(text))]:
        gap = text[pos:start]
        if gap.startswith(" ") and words and not spaces[-1]:
            spaces[-1] = True
            gap = gap[1:]
        if gap:
            words.append(gap)
            spaces.append(False)
        if end > start:
            where.append(len(words))
            words.append(text[start:end])
            spaces.append(False)
        pos = end
    return words, spaces, where
