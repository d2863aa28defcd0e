"""Model predictions in, a HAREM system run out (``harem import``).

A model's output -- character offsets (``harem-json``, ``jsonl``) or one
token per line with its tag (``conll``) -- becomes a run in the golden
collection's own format, carrying the collection's exact document text with
the predicted entities tagged, so every stage scores it as a participant's
run.

Where predictions land on the collection's text:

* **Character offsets** are laid over the collection's text through its
  *non-blank* characters: two texts that differ only in white space map
  exactly.  When the non-blank characters differ too (a dropped character,
  ``&amp;amp;`` written ``&amp;``), they are aligned in linear time: equal
  runs are taken whole (compared slice by slice), and at a difference the
  alignment resynchronises on the nearest place where 8 characters agree
  again, at most 64 characters away on either side, else on a 16-character
  anchor searched 4,096 characters ahead.  An entity keeps the characters
  that align: it starts at its first aligned character and ends after its
  last, so leading or trailing blanks are trimmed.  An entity none of whose
  characters align is on text the collection does not have: it is dropped
  with a warning that names it.  A document without a text takes its
  offsets straight into the collection's text.
* **CoNLL tokens** are matched in order against the document's text,
  skipping white space (a token may stand for a character reference:
  ``&`` for ``&amp;``).  The first token that cannot be matched is an
  ``InputError`` naming the file, line, token, DOCID and what the text has
  there.  A document's tokens and tags are read at once
  (:mod:`harem_pipeline.formats.conll_predictions`) and its tags decoded
  at once, its sentences kept apart, by the decoder of ``harem measures``
  (:class:`harem_pipeline.formats.conll.TagDecoder`), so IOB1, IOB2,
  IOE, IOBES and BILOU all read the same way; ``scheme`` only counts the
  sequences that break it.  Documents are named by ``-DOCSTART- DOCID`` or
  ``# doc_id = DOCID`` lines; unnamed ``-DOCSTART-`` lines, or no document
  lines at all, take the collection's documents in order (without any, a
  sentence moves to the next document once the current one has no text
  left).
* **Boundaries** never cut a character reference (``&amp;``): a boundary
  inside one moves out to include it.  A span that crosses a paragraph
  (``<P>``) boundary, or overlaps the entity before it once placed, cannot
  be written in the format: it is dropped with a warning.

Labels: ``CAT``, ``CAT:TIPO`` (``CAT-TIPO``, ``CAT_TIPO``, ``CAT:TIPO:SUBTIPO``),
split only when the prefix is a category of the Second HAREM grid
(``harem.conf``) or of the First HAREM; ``A|B`` is a vague category.  A
label is written as ``CATEG``/``TIPO``/``SUBTIPO`` (First HAREM: the element
name and ``TIPO``).

The run: the collection's documents in its order, each with the
collection's text and paragraphs and the predicted entities (IDs
``<DOCID>-<n>``); a collection document absent from the predictions is
written with no entities.  No ALT, OMITIDO or MORF.  A DOCID the collection
does not have, or given twice, is an ``InputError``.

Two ways in, one logic: :func:`build_run` takes a ``Collection`` and returns
one (then ``format_collection`` writes it); :func:`run_import` streams the
collection and the predictions a document at a time and writes the same
bytes (a test checks they are equal), so memory does not grow with the
number of documents when the predictions follow the collection's order
(out of order, the predictions read ahead are kept until their document
comes).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.formats.harem_xml import format_document, format_frame, open_collection
from harem_pipeline.model import FIRST_HAREM, Collection, Document
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import detect_file_encoding, open_binary
from harem_pipeline.tools.predictions.conll import DEFAULT_SCHEME
from harem_pipeline.tools.predictions.merge import (
    FORMATS,
    Prediction,
    import_documents,
    predicted_docids,
    read_predictions,
)
from harem_pipeline.tools.predictions.placing import ImportSummary
from harem_pipeline.tools.predictions.writer import run_collection, run_document


def build_run(
    cd: Collection,
    predictions: Iterable[Prediction],
    scheme: str = DEFAULT_SCHEME,
    path: str | None = None,
    named: dict[str, int] | None = None,
) -> tuple[Collection, ImportSummary]:
    """The run of ``predictions`` over the collection ``cd``, and what the import did.

    ``named``: see :func:`import_documents`; when the predictions are a list
    in memory it is computed from them.
    """
    if named is None and not isinstance(predictions, Iterator):
        predictions = list(predictions)
        names = {p.docid: p.line for p in predictions if p.docid is not None}
        named = names or None
    summary = ImportSummary()
    imported = import_documents(cd.documents, predictions, summary, scheme, path, named)
    documents = [run_document(item, cd.format) for item in imported]
    return run_collection(cd, documents), summary


def collection_documents(
    path: PathLike,
) -> tuple[Collection, Iterator[Document]]:
    """The collection's description (no documents) and its documents, read one at a time.

    The documents carry the text and paragraphs a run takes from the
    collection and no entity (``open_collection`` with ``entities`` False),
    which is what makes this fast.  The first document is read at once:
    the run's head is written before the others are read, with the line
    end the file mostly uses so far (its first chunk).
    """
    stream = open_collection(path, entities=False)
    documents = stream.documents
    first = next(documents, None)
    root = stream.root or "colHAREM"
    info = Collection(stream.path, stream.format, stream.encoding, (), stream.newline(), root)
    return info, documents if first is None else itertools.chain((first,), documents)


def open_predictions(path: PathLike, encoding: str | None = None) -> TextIO:
    """A predictions file as text (UTF-8 unless it does not decode; ``.gz`` allowed).

    ``encoding``: the file's, when already known (the check reads the whole file).
    """
    encoding = encoding or detect_file_encoding(path)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline=None)


def predictions_source(
    path: PathLike, fmt: str, encoding: str | None
) -> contextlib.AbstractContextManager[TextIO]:
    """The text of a predictions file; a DocBin, binary, is read by its path instead."""
    if fmt == "spacy":
        return contextlib.nullcontext(io.StringIO())
    return open_predictions(path, encoding)


def default_output(pred: PathLike, collection_format: str) -> Path:
    """Beside ``PRED``: its name up to the first dot, plus ``.run.xml`` or ``.run.txt``."""
    suffix = ".run.txt" if collection_format == FIRST_HAREM else ".run.xml"
    return Path(pred).with_name(Path(pred).name.split(".")[0] + suffix)


_MAPPING = re.compile(r"^\s*([^=\s]+)\s*=\s*([^=\s]+)\s*$")


def parse_label_map(value: str) -> dict[str, str]:
    """``--label-map``: a file of ``A=B`` lines (blank and ``#`` lines skipped) or a JSON
    object ``{"A": "B"}``, or inline ``A=B,C=D``.  A model's label ``A`` is read as ``B``
    (a whole label: ``PER``, or the type of a CoNLL tag ``B-PER``)."""
    path = Path(value)
    if path.is_file():
        text = path.read_text(encoding=detect_file_encoding(path))
        if text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(
                    value, "a JSON object of labels", f"invalid JSON ({exc.msg})"
                ) from None
            if not isinstance(data, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and k and v for k, v in data.items()
            ):
                raise InputError(value, 'a JSON object {"LABEL": "CATEGORY", ...}', "another value")
            return dict(data)
        entries: list[tuple[int | None, str]] = [
            (n, line)
            for n, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        source: str | None = value
    else:
        entries = [(None, part) for part in value.split(",")]
        source = None
    mapping: dict[str, str] = {}
    for n, entry in entries:
        match = _MAPPING.match(entry)
        if match is None:
            raise InputError(source, "a mapping LABEL=CATEGORY", repr(entry.strip()), line=n)
        mapping[match.group(1)] = match.group(2)
    return mapping


def run_import(
    pred: PathLike,
    fmt: str,
    cd: PathLike,
    output: PathLike | None = None,
    scheme: str = DEFAULT_SCHEME,
    label_map: dict[str, str] | None = None,
    only_predicted: bool = False,
) -> tuple[Path, ImportSummary]:
    """``harem import``: write the run of ``pred`` (in ``fmt``) over the collection ``cd``.

    Streams both files (see the module notes) and writes the run atomically
    in the collection's format and encoding; returns its path and the
    summary.  Default output: beside ``pred``, ``<name>.run.xml`` or
    ``<name>.run.txt`` (First HAREM).  A bad input raises ``InputError`` and
    leaves no output behind.  ``label_map`` renames the model's labels first
    (:func:`parse_label_map`); with ``only_predicted`` the documents the predictions
    do not name are written empty, so the chain scores only the predicted ones.
    """
    name = str(pred)
    if fmt not in FORMATS:
        raise InputError(name, f"a predictions format among {', '.join(FORMATS)}", fmt)
    if scheme not in SCHEMES:
        raise InputError(name, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    encoding = None if fmt == "spacy" else detect_file_encoding(pred)
    with predictions_source(pred, fmt, encoding) as handle:
        named = predicted_docids(fmt, handle, name)
    info, cd_documents = collection_documents(cd)
    if output is None:
        output = default_output(pred, info.format)
    head, tail = format_frame(run_collection(info, ()))
    summary = ImportSummary(label_map=dict(label_map or {}))
    if only_predicted:
        summary.absent_as = "empty, so not scored"
    with (
        predictions_source(pred, fmt, encoding) as handle,
        atomic_write(output, "w", encoding=info.encoding) as out,
    ):
        predictions = read_predictions(fmt, handle, name)
        out.write(head)
        if only_predicted and named is None:
            raise InputError(name, "documents named by their DOCIDs (--only-predicted)", "none")
        items = import_documents(
            cd_documents, predictions, summary, scheme, name, named, only_predicted
        )
        for item in items:
            out.write(format_document(run_document(item, info.format), info.format, info.newline))
        if not summary.predicted:  # a run of the collection's text alone scores nothing
            raise InputError(name, "at least one predicted document", "none")
        out.write(tail)
    return Path(output), summary
