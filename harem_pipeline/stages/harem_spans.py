"""Span counts of a HAREM run against its golden collection (CD).

The measures of :mod:`harem_pipeline.measures.spans` (exact, error categories,
overlap, intersection) need spans over token positions; this module turns
a CD and a run into such spans, document by document, with the HAREM
conventions:

* **Tokens** are the aligner's (:func:`harem_pipeline.text.tokens.tokenize`): a
  word token is a run of letters, or one digit; every other character is a
  one-character token.  Blanks (spaces, line ends) are no positions, so two
  texts that differ only in spacing give the same positions; stopwords and
  punctuation are positions, so every entity with a visible character has a
  length.  An entity covers the tokens its characters touch.
* **Positions** are those of the CD document's running text.  A run entity
  is placed through the aligner's numbering: the ``n``-th occurrence of a
  token (compared in upper case) in the run's text is the ``n``-th
  occurrence in the CD's, so a run whose text drifts from the CD's is still
  placed where the aligner would pair it.  When the texts are equal (the
  usual case) this is the identity.  A run entity none of whose tokens
  occur in the CD text gets fresh positions after the document's end: it
  can only be spurious.
* **Labels** are the entity's categories; a vague ``A|B`` is the set
  {A, B} and matches any span whose set shares a category.  A run entity
  with no category has the empty set: it counts in the unlabelled measures
  and never matches in the labelled ones.
* **ALT**: the gold spans of an ``<ALT>`` block are the entities of the
  alternative AltinaID chose (see :func:`read_alt_choices`); without a
  choice, the first alternative (the one the running text holds).
* **OMITIDO**: gold entities inside an omitted region, and run entities
  sharing a token with one, are left out, as the aligner leaves them out.
* **Veil**: with a category veil (a Véus subset), a span keeps the
  categories the veil shows; a span whose categories are all hidden is left
  out on either side (an uncategorised run entity stays, as in Véus).
* **Documents**: with AltinaID's choices, exactly the documents of the
  evaluated file (so a Véus subset's documents); otherwise every CD
  document, a CD document absent from the run having no system spans.
  Entities without any token (empty text) are left out.

How ALT blocks of the CD meet the ``# ALT escolhida: k de n`` lines of an
``.altida`` file: the aligner writes one record block per ALT block that
lies outside every OMITIDO region and holds at least one entity in some
alternative, in document order, and Véus and AltinaID keep that order.  So
the ``i``-th such block of a CD document takes the ``i``-th choice of that
document; a document whose numbers of blocks or of alternatives disagree is
reported as an input error rather than guessed.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import NamedTuple

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import DocStart, DocumentLine, Header, Line
from harem_pipeline.model import AltBlock, Collection, Document, Entity, Veil
from harem_pipeline.stages.align import align_collections
from harem_pipeline.stages.altida import select_alternatives
from harem_pipeline.stages.avalida import evaluate_lines
from harem_pipeline.stages.span_errors import ErrorSpill
from harem_pipeline.stages.span_measures import COUNT_DEFAULTS, CountOptions
from harem_pipeline.stages.span_units import document_units
from harem_pipeline.stages.spans import (
    CountedSpans,
    Span,
    SpanCounts,
    count_document,
    equal_token_tags,
    sum_counts,
)
from harem_pipeline.text.java import java_trim
from harem_pipeline.text.tokens import markable_tokens, tokenize

FORMAT = "harem"

AltChoice = tuple[int, int]
"""One ALT block's choice: the chosen alternative (from 0) and the number of alternatives."""

AltChoices = Mapping[str, tuple[AltChoice, ...]]
"""DOCID → the choices of its ALT blocks in document order; the keys are the documents scored."""

_CHOSEN = re.compile(r"\s*ALT escolhida:\s*(\d+)\s+de\s+(\d+)\s*$")


class Token(NamedTuple):
    """A non-blank token of a running text: its characters ``start:end`` and its key."""

    start: int
    end: int
    key: str


class DocumentSpans(NamedTuple):
    """One document's gold and system spans over the CD document's token positions."""

    docid: str
    gold: tuple[Span, ...]
    system: tuple[Span, ...]


# ---------------------------------------------------------------------------
# AltinaID's choices


def read_alt_choices(lines: Iterable[Line]) -> dict[str, tuple[AltChoice, ...]]:
    """The documents of an evaluated file and the ALT choices AltinaID wrote in it.

    Every ``DOC`` (or First HAREM document line) becomes a key, in file
    order, even with no ALT block; each ``# ALT escolhida: k de n`` line adds
    ``(k - 1, n)`` to the current document.  A document line right after a
    ``DOC`` line names the same document.
    """
    choices: dict[str, list[AltChoice]] = {}
    current: list[AltChoice] | None = None
    previous: Line | None = None
    for item in lines:
        if isinstance(item, (DocStart, DocumentLine)):
            docid = java_trim(item.docid)
            if isinstance(item, DocumentLine) and isinstance(previous, DocStart) and current == []:
                choices.pop(java_trim(previous.docid), None)
            current = choices.setdefault(docid, [])
        elif isinstance(item, Header) and current is not None:
            match = _CHOSEN.match(item.text)
            if match:
                current.append((int(match.group(1)) - 1, int(match.group(2))))
        previous = item
    return {docid: tuple(found) for docid, found in choices.items()}


def choose_alternatives(cd: Collection, run: Collection) -> dict[str, tuple[AltChoice, ...]]:
    """AltinaID's choices for ``run``, computed in memory: AlinhEM, AvalIDa, AltinaID."""
    aligned = align_collections(cd, run)
    return read_alt_choices(select_alternatives(evaluate_lines(aligned.lines, run.path), run.path))


# ---------------------------------------------------------------------------
# Tokens and positions


def text_tokens(text: str, offset: int = 0, cuts: Iterable[int] = ()) -> list[Token]:
    """The non-blank tokens of ``text`` (aligner's cut), offsets shifted by ``offset``.

    ``cuts`` are offsets (in the shifted frame) where a tag stood: the
    aligner cuts each text node apart, so a token never crosses a tag.
    """
    tokens: list[Token] = []
    bounds = sorted({c - offset for c in cuts if offset < c < offset + len(text)})
    piece_start = 0
    for piece_end in (*bounds, len(text)):
        position = offset + piece_start
        for token in tokenize(text[piece_start:piece_end]):
            if token and not token.isspace():
                tokens.append(Token(position, position + len(token), token.upper()))
            position += len(token)
        piece_start = piece_end
    return tokens


def tag_offsets(doc: Document) -> set[int]:
    """Where a tag stands in the running text: entity, ALT and OMITIDO boundaries.

    Entities of an ALT block's other alternatives are left out: their
    offsets are in their own alternative's text.
    """
    entities = (*doc.entities, *doc.omitted_entities)
    entities += tuple(e for block in doc.alt_blocks for e in block.alternatives[0])
    regions = [(e.start, e.end) for e in entities]
    regions += [(b.start, b.end) for b in doc.alt_blocks]
    regions += list(doc.omitted)
    return {offset for region in regions for offset in region}


def token_range(
    starts: Sequence[int], ends: Sequence[int], start: int, end: int
) -> tuple[int, int]:
    """Indexes ``[lo, hi)`` of the tokens that characters ``start:end`` touch (may be empty)."""
    return bisect_right(ends, start), bisect_left(starts, end)


class _Positions:
    """Character offsets of one text → token positions of the CD document."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.starts = [t.start for t in tokens]
        self.ends = [t.end for t in tokens]

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        lo, hi = token_range(self.starts, self.ends, start, end)
        return (lo, hi) if hi > lo else None


# ---------------------------------------------------------------------------
# Labels


def entity_labels(entity: Entity, veil: Veil | None) -> frozenset[str] | None:
    """The label set of ``entity`` under ``veil``; None when the veil hides the entity."""
    labels = frozenset(entity.categories)
    if veil is None or veil.everything or not labels:
        return labels
    shown = frozenset(c for c in labels if veil.contains_category(c))
    return shown or None


# ---------------------------------------------------------------------------
# One document


def eligible_blocks(doc: Document) -> list[AltBlock]:
    """The ALT blocks the aligner writes records for, in document order."""
    return [
        block
        for block in sorted(doc.alt_blocks, key=lambda b: (b.start, b.end))
        if any(block.alternatives) and not doc.is_omitted(block.start, block.end)
    ]


def _check_choices(
    doc: Document, blocks: Sequence[AltBlock], choices: Sequence[AltChoice], path: str
) -> None:
    if len(choices) != len(blocks):
        raise InputError(
            path,
            f"{len(blocks)} ALT choice(s), one per ALT block of the CD document",
            f"{len(choices)}",
            docid=doc.docid,
        )
    for block, (k, n) in zip(blocks, choices, strict=True):
        if n != len(block.alternatives) or not 0 <= k < n:
            raise InputError(
                path,
                f"a choice among the {len(block.alternatives)} alternatives of the ALT block "
                f"at line {block.line}",
                f"alternative {k + 1} of {n}",
                docid=doc.docid,
            )


def gold_spans(
    doc: Document,
    tokens: Sequence[Token],
    choices: Sequence[AltChoice] | None,
    veil: Veil | None,
    path: str = "",
) -> list[Span]:
    """The CD document's spans: plain entities and the chosen alternative of each block."""
    positions = _Positions(tokens)
    omitted = [r for r in (positions.span(s, e) for s, e in doc.omitted) if r is not None]
    spans: list[Span] = []

    def add(entity: Entity, where: tuple[int, int] | None) -> None:
        labels = entity_labels(entity, veil)
        if where is None or labels is None or _touches(where, omitted):
            return
        spans.append((where[0], where[1], labels))

    for entity in doc.entities:
        add(entity, positions.span(entity.start, entity.end))
    blocks = eligible_blocks(doc)
    if choices is not None:
        _check_choices(doc, blocks, choices, path)
    for index, block in enumerate(blocks):
        k = choices[index][0] if choices is not None else 0
        if k == 0:
            for entity in block.alternatives[0]:
                add(entity, positions.span(entity.start, entity.end))
            continue
        # Alternative k is cut on its own and laid over the block's positions
        # (alternatives differ in markup and spacing, not in tokens; any excess
        # is clamped into the block).
        first, last = positions.span(block.start, block.end) or (0, 0)
        cuts = {x for e in block.alternatives[k] for x in (e.start, e.end)}
        local = _Positions(text_tokens(block.alternative_texts[k], block.start, cuts))
        for entity in block.alternatives[k]:
            where = local.span(entity.start, entity.end)
            if where is not None:
                lo = min(first + where[0], last - 1)
                where = (lo, max(lo + 1, min(first + where[1], last)))
            add(entity, where)
    return spans


def _touches(where: tuple[int, int], regions: Sequence[tuple[int, int]]) -> bool:
    return any(where[0] < hi and lo < where[1] for lo, hi in regions)


def markable_keys(doc: Document) -> frozenset[str]:
    """The aligner's markable keys: upper-cased non-stopword tokens of every CD entity."""
    return frozenset(key for entity in doc.all_entities for key in markable_tokens(entity.text))


def place_tokens(
    cd_tokens: Sequence[Token], run_tokens: Sequence[Token], keys: frozenset[str]
) -> list[int | None]:
    """For each run token, the CD position of the same numbered markable token, or None.

    Only markable tokens are numbered (the aligner's rule): the ``n``-th
    occurrence of a markable key in the run is its ``n``-th in the CD.
    """
    where = {
        numbered: i for i, numbered in enumerate(_numbered(cd_tokens, keys)) if numbered is not None
    }
    return [None if n is None else where.get(n) for n in _numbered(run_tokens, keys)]


def _numbered(tokens: Sequence[Token], keys: frozenset[str]) -> list[tuple[str, int] | None]:
    """Each token as the aligner identifies it, (key, occurrence from 1); None if not markable."""
    seen: dict[str, int] = {}
    out: list[tuple[str, int] | None] = []
    for token in tokens:
        if token.key not in keys:
            out.append(None)
            continue
        n = seen.get(token.key, 0) + 1
        seen[token.key] = n
        out.append((token.key, n))
    return out


def place_span(lo: int, hi: int, placed: Sequence[int | None], size: int) -> tuple[int, int] | None:
    """CD positions of the run tokens ``[lo, hi)`` from their placed (markable) tokens.

    Each placed token fixes where the entity starts and ends (its unplaced
    tokens, stopwords and punctuation, keep their distance to it); the span
    runs from the earliest start to the latest end, inside the document.
    None when no token is placed.
    """
    starts = [p - (i - lo) for i in range(lo, hi) if (p := placed[i]) is not None]
    if not starts:
        return None
    ends = [p + (hi - i) for i in range(lo, hi) if (p := placed[i]) is not None]
    start, end = max(0, min(starts)), min(size, max(ends))
    return (start, max(end, start + 1))


def system_spans(
    cd_doc: Document,
    cd_tokens: Sequence[Token],
    run_doc: Document,
    veil: Veil | None,
) -> list[Span]:
    """The run document's spans over the CD document's positions (see the module notes)."""
    cd_positions = _Positions(cd_tokens)
    omitted = [r for r in (cd_positions.span(s, e) for s, e in cd_doc.omitted) if r is not None]
    keys = markable_keys(cd_doc)
    if run_doc.text == cd_doc.text:
        run_tokens, run_positions = cd_tokens, cd_positions
        placed: list[int | None] = [i if t.key in keys else None for i, t in enumerate(cd_tokens)]
    else:
        run_tokens = text_tokens(run_doc.text, cuts=tag_offsets(run_doc))
        run_positions = _Positions(run_tokens)
        placed = place_tokens(cd_tokens, run_tokens, keys)
    size = fresh = len(cd_tokens)
    spans: list[Span] = []
    for entity in sorted(run_doc.entities, key=lambda e: (e.start, e.end)):
        labels = entity_labels(entity, veil)
        own = run_positions.span(entity.start, entity.end)
        if labels is None or own is None:
            continue
        where = place_span(own[0], own[1], placed, size)
        if where is None:
            where = (fresh, fresh + own[1] - own[0])
            fresh = where[1]
        elif _touches(where, omitted):
            continue
        spans.append((where[0], where[1], labels))
    return spans


def document_spans_tokens(
    cd_doc: Document,
    run_doc: Document | None,
    choices: Sequence[AltChoice] | None = None,
    veil: Veil | None = None,
    path: str = "",
) -> tuple[DocumentSpans, list[Token]]:
    """One document's spans and its tokens (the positions, with their characters)."""
    cuts = tag_offsets(cd_doc)
    if run_doc is not None and run_doc.text == cd_doc.text:
        cuts |= tag_offsets(run_doc)
    tokens = text_tokens(cd_doc.text, cuts=cuts)
    gold = gold_spans(cd_doc, tokens, choices, veil, path)
    system = [] if run_doc is None else system_spans(cd_doc, tokens, run_doc, veil)
    return DocumentSpans(cd_doc.docid, tuple(gold), tuple(system)), tokens


def token_text(text: str, tokens: Sequence[Token], start: int, end: int) -> str:
    """The characters of positions ``start:end`` (fresh positions past the text: empty)."""
    inside = tokens[start : min(end, len(tokens))]
    return text[inside[0].start : inside[-1].end] if inside else ""


def _pairs(
    cd: Collection, run: Collection, alt_choices: AltChoices | None
) -> Iterator[tuple[Document, Document | None, tuple[AltChoice, ...] | None]]:
    cd_docs: dict[str, Document] = {}
    for doc in cd.documents:
        cd_docs.setdefault(java_trim(doc.docid), doc)
    run_docs: dict[str, Document] = {}
    for doc in run.documents:
        run_docs.setdefault(java_trim(doc.docid), doc)
    if alt_choices is None:
        for docid, doc in cd_docs.items():
            yield doc, run_docs.get(docid), None
        return
    for docid, choices in alt_choices.items():
        found = cd_docs.get(java_trim(docid))
        if found is None:
            raise InputError(cd.path, "the document of the evaluated file in the CD", docid)
        yield found, run_docs.get(java_trim(docid)), choices


def _document_spans_all(
    cd: Collection, run: Collection, alt_choices: AltChoices | None, veil: Veil | None
) -> Iterator[tuple[DocumentSpans, int]]:
    for spans, tokens, _text in _document_spans_text(cd, run, alt_choices, veil):
        yield spans, len(tokens)


def _document_spans_text(
    cd: Collection, run: Collection, alt_choices: AltChoices | None, veil: Veil | None
) -> Iterator[tuple[DocumentSpans, list[Token], str]]:
    for cd_doc, run_doc, choices in _pairs(cd, run, alt_choices):
        spans, tokens = document_spans_tokens(cd_doc, run_doc, choices, veil, cd.path)
        yield spans, tokens, cd_doc.text


def spans_from_collections(
    cd: Collection,
    run: Collection,
    alt_choices: AltChoices | None = None,
    veil: Veil | None = None,
) -> Iterator[DocumentSpans]:
    """``(docid, gold spans, system spans)`` of every document scored, lazily.

    ``alt_choices`` (from :func:`read_alt_choices` or
    :func:`choose_alternatives`) picks both the documents and each ALT
    block's gold alternative; None scores every CD document with the first
    alternatives.  ``veil`` restricts the categories (None: all).
    """
    for spans, _ in _document_spans_all(cd, run, alt_choices, veil):
        yield spans


def count_collections(
    cd: Collection,
    run: Collection,
    alt_choices: AltChoices | None = None,
    veil: Veil | None = None,
    options: CountOptions = COUNT_DEFAULTS,
) -> CountedSpans:
    """The span counts of ``run`` against ``cd``, with per-document counts.

    Documents and gold alternatives as in :func:`spans_from_collections`;
    the per-document counts are the bootstrap's units (one per document
    below 2,000 documents).  Of ``options``, ``min_overlap``, ``labels`` and
    ``errors`` count as for :func:`harem_pipeline.stages.span_measures.count_file`;
    the others are a token file's (a HAREM run has no tagging scheme, and
    its units are always its documents).  An error is placed by its DOCID
    and its CD token positions (no sentence), its text the CD's characters.
    Token accuracy compares the positions' span tags
    (:func:`~harem_pipeline.stages.spans.equal_token_tags`) after the veil.
    """
    labels, min_overlap = options.labels, options.min_overlap
    per_document: dict[str, SpanCounts] = {}
    documents = tokens = equal = 0
    spill = ErrorSpill() if options.errors else None
    listing = None if spill is None else spill.listing
    for spans, cd_tokens, text in _document_spans_text(cd, run, alt_choices, veil):
        gold, system = spans.gold, spans.system
        size = len(cd_tokens)
        equal += equal_token_tags(gold, system, size)
        if labels is not None:
            gold, system = labels(gold), labels(system)
        counts = count_document(gold, system, min_overlap, listing)
        if spill is not None:
            spill.flush(spans.docid, None, partial(token_text, text, cd_tokens))
        earlier = per_document.get(spans.docid)
        per_document[spans.docid] = counts if earlier is None else earlier + counts
        documents += 1
        tokens += size
    counts = sum_counts(per_document.values())
    units = document_units(per_document.items())
    return CountedSpans(
        run.path,
        FORMAT,
        None,
        documents,
        tokens,
        counts,
        units=units,
        equal_tags=equal,
        errors=spill,
    )
