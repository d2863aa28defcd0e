"""Predictions, one record a document whatever the format, merged with the collection's
documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple, TextIO

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.formats.conll_predictions import (
    ConllColumns,
    ConllDocument,
    ConllSentence,
    conll_docids,
    read_conll_documents,
)
from harem_pipeline.formats.harem_json import CharDocument, parse_harem_json, parse_span_jsonl
from harem_pipeline.formats.hf import parse_hf
from harem_pipeline.formats.spacy_docbin import read_docbin
from harem_pipeline.model import Document
from harem_pipeline.tools.predictions.conll import DEFAULT_SCHEME, ConllPlacer
from harem_pipeline.tools.predictions.placing import ImportSummary, Placed, place_char_document

FORMATS = ("harem-json", "conll", "jsonl", "hf", "spacy")


class Prediction(NamedTuple):
    """One predicted document: its DOCID (None: the next one in order), line, and content.

    ``flow`` marks a sentence of a CoNLL file with no document lines: such
    sentences fill the collection's documents in turn.
    """

    docid: str | None
    line: int
    content: CharDocument | list[ConllSentence] | ConllColumns
    flow: bool = False


def read_predictions(
    fmt: str, source: TextIO | Iterable[str], path: str | None = None
) -> Iterator[Prediction]:
    """The documents of a predictions file in ``fmt``, in file order."""
    if fmt == "harem-json":
        for doc in parse_harem_json(source, path):
            yield Prediction(doc.docid, doc.line, doc)
    elif fmt == "jsonl":
        for doc in parse_span_jsonl(source, path):
            yield Prediction(doc.docid, doc.line, doc)
    elif fmt == "conll":
        yield from _conll_predictions(read_conll_documents(source, path), path)
    elif fmt == "hf":  # a row is a named document of one sentence
        for row in parse_hf(source, path):
            yield Prediction(row.id, row.line, [ConllSentence(row.tokens, row.tags, row.line)])
    elif fmt == "spacy":  # binary: read from the path, not the text source
        for item in read_docbin(path or ""):
            if isinstance(item, tuple):
                yield Prediction(None, item[1].line, item[1])
            else:
                yield Prediction(item.docid, item.line, item)
    else:
        raise InputError(path, f"a predictions format among {', '.join(FORMATS)}", fmt)


def _conll_predictions(
    items: Iterable[ConllSentence | ConllDocument | ConllColumns], path: str | None
) -> Iterator[Prediction]:
    current: Prediction | None = None
    sentences: list[ConllSentence] = []  # the current prediction's content
    named: bool | None = None
    for item in items:
        if isinstance(item, ConllDocument):
            if named is not None and named != (item.docid is not None):
                raise InputError(
                    path,
                    "every document named by its DOCID, or none",
                    item.docid or "an unnamed -DOCSTART-",
                    line=item.line,
                )
            named = item.docid is not None
            if current is not None:
                yield current
            sentences = []
            current = Prediction(item.docid, item.line, sentences)
        elif isinstance(item, ConllColumns):
            if current is None:  # a file read in columns opens with a document line
                raise InputError(path, "a document line before the tokens", "a document")
            current = current._replace(content=item)
        elif current is None:
            if named is not None:
                raise InputError(
                    path, "a document line before the tokens", item.tokens[0], line=item.line
                )
            yield Prediction(None, item.line, [item], flow=True)
        else:
            sentences.append(item)
    if current is not None:
        yield current


# ---------------------------------------------------------------------------
# The merge of the collection's documents with the predictions


class ImportedDocument(NamedTuple):
    """A collection document and the predicted entities placed on it."""

    document: Document
    entities: list[Placed]


def _emptied(doc: Document) -> Document:
    """``doc`` with no text and no markup: a document the run does not submit."""
    return replace(
        doc,
        text="",
        entities=(),
        alt_blocks=(),
        paragraphs=(),
        omitted=(),
        omitted_entities=(),
        omitted_outer=(),
    )


def import_documents(
    cd_documents: Iterable[Document],
    predictions: Iterable[Prediction],
    summary: ImportSummary,
    scheme: str = DEFAULT_SCHEME,
    path: str | None = None,
    named: dict[str, int] | None = None,
    only_predicted: bool = False,
) -> Iterator[ImportedDocument]:
    """Each collection document, in order, with its predicted entities placed.

    A document the predictions do not name is written without entities, or
    with ``only_predicted`` without text either: the aligner then leaves it
    out (its rule for an empty run document), so only the predicted
    documents are scored.

    ``named`` maps every DOCID of the predictions to its line (from a first
    pass, :func:`predicted_docids`); it tells a document absent from the
    predictions from one still to come, so predictions in the collection's
    order are read in step and never held.  None: the predictions name no
    documents and follow the collection's order.
    """
    if scheme not in SCHEMES:
        raise InputError(path, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    if named is None:
        yield from _in_order(cd_documents, iter(predictions), summary, scheme, path)
        return
    stream = iter(predictions)
    waiting: dict[str | None, Prediction] = {}
    done: set[str] = set()
    for doc in cd_documents:
        summary.documents += 1
        found = waiting.pop(doc.docid, None)
        if found is None and doc.docid in named:
            for pred in stream:
                if pred.docid in waiting or pred.docid in done:
                    raise InputError(
                        path,
                        "each DOCID once",
                        f"{pred.docid} again",
                        line=pred.line,
                        docid=pred.docid,
                    )
                if pred.docid == doc.docid:
                    found = pred
                    break
                waiting[pred.docid] = pred
        done.add(doc.docid)
        if found is None:
            summary.absent += 1
            yield ImportedDocument(_emptied(doc) if only_predicted else doc, [])
            continue
        summary.predicted += 1
        yield ImportedDocument(doc, _place(doc, found, summary, scheme, path))
    for pred in (*waiting.values(), *stream):
        docid = pred.docid or ""
        expected = "a DOCID given once" if docid in done else "a DOCID of the collection"
        raise InputError(path, expected, docid, line=pred.line, docid=docid)


def _place(
    doc: Document, pred: Prediction, summary: ImportSummary, scheme: str, path: str | None
) -> list[Placed]:
    if isinstance(pred.content, CharDocument):
        placed = place_char_document(doc, pred.content, summary, path)
    else:
        placer = ConllPlacer(doc, scheme, summary, path)
        if isinstance(pred.content, ConllColumns):
            placer.add_columns(pred.content)
        else:
            placer.add_sentences(pred.content)
        placed = placer.placed
    summary.entities += len(placed)
    return placed


def _in_order(
    cd_documents: Iterable[Document],
    stream: Iterator[Prediction],
    summary: ImportSummary,
    scheme: str,
    path: str | None,
) -> Iterator[ImportedDocument]:
    """Unnamed predictions: each ``-DOCSTART-`` the next document, or sentences flowing on."""
    pending = next(stream, None)
    for doc in cd_documents:
        summary.documents += 1
        if pending is None:
            summary.absent += 1
            yield ImportedDocument(doc, [])
            continue
        summary.predicted += 1
        if not pending.flow:
            placed = _place(doc, pending, summary, scheme, path)
            pending = next(stream, None)
            yield ImportedDocument(doc, placed)
            continue
        placer = ConllPlacer(doc, scheme, summary, path)
        while pending is not None and pending.flow and not placer.cursor.exhausted:
            placer.add(pending.content[0])  # type: ignore[index, arg-type]  # flow: one sentence
            pending = next(stream, None)
        summary.entities += len(placer.placed)
        yield ImportedDocument(doc, placer.placed)
    if pending is not None:
        raise InputError(
            path,
            "no more predicted documents than the collection has",
            f"predictions left after its last document: {_first_token(pending)}",
            line=pending.line,
        )


def _first_token(pred: Prediction) -> str:
    if isinstance(pred.content, ConllColumns) and pred.content.tokens:
        return repr(pred.content.tokens[0])
    if isinstance(pred.content, list) and pred.content:
        return repr(pred.content[0].tokens[0])
    return "a document"


def predicted_docids(
    fmt: str, source: TextIO | Iterable[str], path: str | None = None
) -> dict[str, int] | None:
    """DOCID → line of every document a predictions file names; None when it names none.

    A CoNLL file is only scanned for its document lines
    (:func:`harem_pipeline.formats.conll_predictions.conll_docids`); the
    other formats are read through.
    """
    named: dict[str, int] = {}
    if fmt == "conll":
        return conll_docids(source)
    for pred in read_predictions(fmt, source, path):
        if pred.docid is None:  # a DocBin without DOCIDs: taken in order
            return None
        named.setdefault(pred.docid, pred.line)
    return named
