"""AlinhEM: align a system run with the golden collection (CD) → ``.alinhado`` records.

Behaviour is that of the official aligner of LÂMPADA 2.0, whose output we
reproduce line for line (see ``tests/test_align.py``):

* documents are paired by DOCID (leading/trailing blanks ignored); a run
  document absent from the CD is skipped with the warning
  ``NÃo consegui encontrar o documento na CD: <id>`` (the original's
  spelling, kept so warnings compare equal), an empty run document with
  ``Estou a ignorar o documento na submissÃo: <id>``;
* inside a document, the upper-cased non-stopword tokens of every CD entity
  are *markable*; every occurrence of a markable token is numbered in the
  running text of both files (``harem_pipeline.text.tokens``); a CD entity and a
  run entity align when they contain the same numbered token;
* CD entities appear in document order, each ``---> [run entities]`` or
  ``---> [null]``; an ``<ALT>`` block of the CD is printed alternative by
  alternative (``<ALT>``, ``<ALTn>``…); run entities aligned to nothing
  follow as spurious records ``<EM CATEG="ESPURIO">text</EM> ---> [...]``;
* text inside ``<OMITIDO>`` is numbered like any text, but neither its
  entities nor records aligned only to them are written;
* an ``<OMITIDO>`` is itself an entity of the CD (the original renames the
  element ``EM`` and marks it ``OMITIDO="1"``, NamedEntityTagParser), whose
  text is its own character data; an entity is omitted when it or an
  ancestor is an ``OMITIDO``.  So in ``<OMITIDO><P>text</P></OMITIDO>`` the
  text belongs to the ``P``: its tokens are markable only through the
  omitted entities inside, and a run entity there that meets none of them
  is written as spurious; in ``<P><OMITIDO>text</OMITIDO></P>`` the text is
  the omitted entity's, and run entities in it are not written.  Which of
  the two a file says is ``Document.omitted_outer``;
* when a markable token occurs a different number of times in the two texts
  (the texts differ), a CD entity left unaligned that contains that token
  in upper case is reported in a ``<VERIFICACAO_MANUAL>`` line after the
  document line; alignment of the rest goes on.

The original's quirks are reproduced because the reference outputs depend
on them: numbering outside ``ALT`` wraps the first case-sensitive match of
the token after the previous one (``tokens.number_by_search``); inside
``ALT`` each alternative is numbered from the same counts and the counts
after the block are those of the last alternative; the text of an
``<OMITIDO>`` region is its own character data with the nested entities'
text left out; the order of the tokens in a ``VERIFICACAO_MANUAL`` line is
the iteration order of the original's hash table (Java 8 ``HashMap``),
emulated by ``java_hash_order``.

Deliberate differences from the original, with reasons:

* The two ``#`` header lines carry the files' base names, not the paths as
  typed, so outputs do not depend on the working directory (the reference
  comparison drops these lines anyway).
* A CD document absent from the run: the original only lists its DOCID on
  stderr (``A submissÃo nÃo continha documentos da CD:`` then one DOCID a
  line; we print the same warning) and writes nothing, so its entities
  silently vanish from the evaluation.  We also write its block, after the
  run's documents and in CD order, with every entity ``---> [null]``: the
  specification counts them as missing.
* When two CD entities are identical (same attributes and same numbered
  text, which needs a text without markable tokens) the original merges
  their records and may print ``null`` inside a list of run entities; the
  record format has no such item, so that ``null`` is dropped.
* An attribute value holding a line end written as ``&#10;`` is printed
  with a space there (the original prints the line end and breaks the
  record in two lines).
* The original re-reads numbered texts with a small parser, which goes
  wrong when an entity's own text contains ``<digits>...</digits>``; we
  keep the numbered tokens as data and never re-parse.
* In an alternative of a CD ``ALT`` block with no entity, each run entity
  aligned to the block is a spurious record; the original lists on it every
  run entity that shares a token with it, we list the spurious entity
  alone.  The two differ only when run entities overlap, which a run does
  only when it holds ``ALT`` blocks itself (a collection scored against
  itself: the aligner takes every alternative's entities as the run's, as
  the official worked example ``exemplo0`` shows).  On such a record the
  original's AvalIDa writes one ``Espurio`` for several entities, and its
  Véus and Ida2ID then stop with an exception (``NoSuchElementException``
  in ``IdentificationEvaluatedAlignmentProcessor``): a spurious record is
  one spurious entity, and written so every stage reads it.
* First HAREM (2005) collections were aligned by a lost Perl program: for
  them a document starts with the line ``DOCID ORIGEM GENERO``
  (``HAREM-251-04443 PT Web``) and has no ``EOD``, entities keep their
  First HAREM tags (``<LOCAL TIPO=".." MORF="F,S">``) and spurious ones
  are ``<ESPURIO>text</ESPURIO>``, as in the Vizir documentation.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    Blank,
    DocEnd,
    DocStart,
    DocumentLine,
    Header,
    Line,
    format_lines,
)
from harem_pipeline.formats.harem_xml import DocumentSlice, read_document
from harem_pipeline.model import FIRST_HAREM, Collection, Document
from harem_pipeline.stages.align.records import align_documents, as_line, as_text, body_items
from harem_pipeline.text.java import java_hash_order, java_trim
from harem_pipeline.text.progress import progress
from harem_pipeline.text.spill import SpillingStore

# Messages of the original, byte for byte (its "nÃo" is a typo of "não").
MISSING_DOCUMENT = "N\u00c3o consegui encontrar o documento na CD: "
IGNORED_DOCUMENT = "Estou a ignorar o documento na submiss\u00c3o: "
RUN_MISSING_DOCUMENTS = "A submiss\u00c3o n\u00c3o continha documentos da CD: "


@dataclass(frozen=True, slots=True)
class AlignmentResult:
    """What AlinhEM produces: the ``.alinhado`` lines and the warnings of the run.

    ``warnings`` are the lines the original prints on stderr, in order.
    """

    lines: tuple[Line, ...]
    warnings: tuple[str, ...]


# ---------------------------------------------------------------------------
# Collections


def is_empty(doc: Document) -> bool:
    """Whether a run's document says nothing (its DOCID alone): it is ignored, with a warning."""
    return not java_trim(doc.text) and not (
        doc.entities or doc.alt_blocks or doc.paragraphs or doc.omitted or doc.omitted_entities
    )


def document_block(cd_doc: Document, run_doc: Document, xml: bool, body: list[Line]) -> list[Line]:
    if xml:
        return [DocStart(run_doc.docid), *body, DocEnd(), Blank(), Blank()]
    variant = cd_doc.variant or run_doc.variant or "?"
    genre = cd_doc.genre or run_doc.genre or "?"
    return [DocumentLine(cd_doc.docid, variant, genre), *body, Blank(), Blank()]


def _bare(doc: Document) -> Document:
    """The CD document's text with no annotation: what a run that lacks it is taken to say."""
    return Document(
        docid=doc.docid,
        text=doc.text,
        paragraphs=doc.paragraphs,
        variant=doc.variant,
        genre=doc.genre,
    )


def align_collections(cd: Collection, run: Collection) -> AlignmentResult:
    """Align every document of ``run`` with the CD document of the same DOCID."""
    if cd.format != run.format:
        raise InputError(run.path, f"a run in the {cd.format} format of the CD", run.format)
    xml = cd.format != FIRST_HAREM
    lines: list[Line] = [
        Header(" " + os.path.basename(run.path)),
        Header(" " + os.path.basename(cd.path)),
    ]
    warnings: list[str] = []
    remaining: dict[str, Document] = {}
    for doc in cd.documents:
        remaining[java_trim(doc.docid)] = doc
    table_size = len(remaining)
    for run_doc in progress(run.documents, os.path.basename(run.path), "doc"):
        cd_doc = remaining.pop(java_trim(run_doc.docid), None)
        if cd_doc is None:
            warnings.append(MISSING_DOCUMENT + run_doc.docid)
            continue
        if is_empty(run_doc):
            warnings.append(IGNORED_DOCUMENT + run_doc.docid)
            continue
        body = align_documents(cd_doc, run_doc, xml, cd.path, run.path)
        lines.extend(document_block(cd_doc, run_doc, xml, body))
    if remaining:
        warnings.append(RUN_MISSING_DOCUMENTS)
        warnings.extend(java_hash_order(list(remaining), size=table_size))
        for cd_doc in remaining.values():
            body = align_documents(cd_doc, _bare(cd_doc), xml, cd.path, run.path, False)
            lines.extend(document_block(cd_doc, cd_doc, xml, body))
    return AlignmentResult(tuple(lines), tuple(warnings))


@dataclass(frozen=True, slots=True)
class AlignmentWritten:
    """What aligning two files gives besides the ``.alinhado``: the warnings, in order."""

    warnings: tuple[str, ...]


class DuplicateTrimmedDocid(Exception):
    """A CD DOCID equal, once trimmed, to one already paired: handled by reading whole files."""


# Characters of CD text held in memory while the run is behind the CD.
_PENDING_BUDGET = 1 << 22


def _text_size(doc: Document | DocumentSlice) -> int:
    return len(doc.text) if isinstance(doc, Document) else len(doc.data)


class _CdReader:
    """The CD's documents on demand, by trimmed DOCID, reading the file only as far as needed."""

    def __init__(self, documents: Iterator[Document | DocumentSlice]) -> None:
        self._documents = documents
        self.pending: SpillingStore[Document | DocumentSlice]
        self.pending = SpillingStore(_PENDING_BUDGET, _text_size)
        self.seen: set[str] = set()

    def _keep(self, doc: Document | DocumentSlice) -> str:
        key = java_trim(doc.docid)
        if key in self.seen and key not in self.pending:
            raise DuplicateTrimmedDocid(key)
        self.seen.add(key)
        return key

    def take(self, key: str) -> Document | DocumentSlice | None:
        """The CD document for ``key``, or None when the CD has none (left)."""
        if key in self.pending:
            return self.pending.pop(key)
        if key in self.seen:
            return None
        for doc in self._documents:
            found = self._keep(doc)
            if found == key:
                return doc
            self.pending.put(found, doc)
        return None

    def finish(self) -> None:
        """Read the rest of the CD into ``pending``."""
        for doc in self._documents:
            self.pending.put(self._keep(doc), doc)


@dataclass(frozen=True, slots=True)
class DocumentPair:
    """One document pair to align: the CD's document, the run's, and how.

    ``run_doc`` None stands for a CD document the run lacks, aligned against
    its own bare text without comparing counts.  Documents may still be as
    written (``DocumentSlice``, read by ``read_pair``, which may be done in
    another process) and hold all ``pair_lines`` needs, so pairs can be
    aligned in any process, in any order.
    """

    cd_doc: Document | DocumentSlice
    run_doc: Document | DocumentSlice | None
    xml: bool
    cd_path: str
    run_path: str


def pair_lines(pair: DocumentPair) -> list[Line]:
    """The ``.alinhado`` block of one document pair (document line, records, blank lines)."""
    cd_doc, run_doc, check_counts = pair_documents(pair)
    body = body_items(cd_doc, run_doc, pair.xml, pair.cd_path, pair.run_path, check_counts)
    return document_block(cd_doc, run_doc, pair.xml, list(map(as_line, body)))


def pair_text(pair: DocumentPair) -> str:
    """``format_lines(pair_lines(pair))``, its records written without building their lines."""
    cd_doc, run_doc, check_counts = pair_documents(pair)
    body = body_items(cd_doc, run_doc, pair.xml, pair.cd_path, pair.run_path, check_counts)
    first, *rest = document_block(cd_doc, run_doc, pair.xml, [])
    records = "".join([as_text(item) + "\n" for item in body])  # every line ends in LF
    return format_lines([first]) + records + format_lines(rest)


def pair_documents(pair: DocumentPair) -> tuple[Document, Document, bool]:
    """The pair's two documents, and whether their counts are compared (a run document)."""
    cd_doc, run_doc = pair.cd_doc, pair.run_doc
    if not isinstance(cd_doc, Document) or isinstance(run_doc, DocumentSlice):
        raise TypeError("documents as written: read_pair reads them")
    if run_doc is not None:
        return cd_doc, run_doc, True
    return cd_doc, _bare(cd_doc), False


def read_pair(pair: DocumentPair) -> DocumentPair | None:
    """The pair with its documents as written read (``read_document``); None when the
    run's document, read only now, is empty: it is ignored (``IGNORED_DOCUMENT``), as
    ``document_pairs`` ignores an empty document read already."""
    cd_doc, run_doc = pair.cd_doc, pair.run_doc
    if isinstance(cd_doc, DocumentSlice):
        cd_doc = read_document(cd_doc)
    if isinstance(run_doc, DocumentSlice):
        run_doc = read_document(run_doc)
        if is_empty(run_doc):
            return None
    return DocumentPair(cd_doc, run_doc, pair.xml, pair.cd_path, pair.run_path)


class DocumentSource(Protocol):
    """A collection read one document at a time."""

    @property
    def path(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def documents(self) -> Iterator[Document | DocumentSlice]: ...


def header_lines(cd: DocumentSource, run: DocumentSource) -> list[Line]:
    """The two ``#`` lines that open an ``.alinhado``: the run's and the CD's base names."""
    return [Header(" " + os.path.basename(run.path)), Header(" " + os.path.basename(cd.path))]


def document_pairs(
    cd: DocumentSource, run: DocumentSource, warnings: list[str]
) -> Iterator[DocumentPair]:
    """The document pairs of ``align_collections``, in its order, read one at a time.

    Warnings are appended to ``warnings`` as the documents are read, but for a
    run's document as written (``DocumentSlice``): whether it is empty is known
    once ``read_pair`` reads it.  A run's document the CD lacks is read here, for
    its faults (the collection reader reads every document).
    """
    xml = cd.format != FIRST_HAREM
    reader = _CdReader(cd.documents)
    try:
        for run_doc in progress(run.documents, os.path.basename(run.path), "doc"):
            cd_doc = reader.take(java_trim(run_doc.docid))
            if cd_doc is None:
                if isinstance(run_doc, DocumentSlice):
                    read_document(run_doc)
                warnings.append(MISSING_DOCUMENT + run_doc.docid)
                continue
            if isinstance(run_doc, Document) and is_empty(run_doc):
                warnings.append(IGNORED_DOCUMENT + run_doc.docid)
                continue
            yield DocumentPair(cd_doc, run_doc, xml, cd.path, run.path)
        reader.finish()
        remaining = reader.pending
        if len(remaining):
            warnings.append(RUN_MISSING_DOCUMENTS)
            warnings.extend(java_hash_order(remaining.keys(), size=len(reader.seen)))
            for cd_doc in remaining.drain():
                yield DocumentPair(cd_doc, None, xml, cd.path, run.path)
    finally:
        reader.pending.close()
