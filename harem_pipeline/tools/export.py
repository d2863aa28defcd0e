"""A golden collection in the models' formats (``harem export``): training and gold files.

The collection's documents become ``harem-json``, ``jsonl`` (character
offsets, see :mod:`harem_pipeline.formats.harem_json`) or ``conll`` (one
token per line and its tag) documents, with one flat, non-overlapping layer
of entities, which is what NER models train on.  What HAREM annotates
beyond that layer is resolved so:

* **ALT blocks** (``--alt``): ``first`` takes each block's first
  alternative -- the one the running text holds, and what the collection
  itself calls its reading; ``best`` takes the alternative with the most
  entities (the first of those on a tie): the finest segmentation, so a
  model learns to tag every piece the annotators would accept as an entity,
  which is what AltinaID rewards a run for when it chooses each block's
  alternative.  Alternatives differ in markup and spacing, never in
  non-blank characters (true of every shipped collection); an alternative
  whose characters differ from the first's is replaced by the first.
* **Vague categories** ``A|B`` keep the first, ``A`` (a model predicts one
  label), and its type; in the selective scenario, the first that is one of
  the five (``OBRA|LOCAL`` is ``LOCAL`` there).  An entity without a category is labelled
  ``OUTRO``.
* **Scenario** (``--scenario``): ``total`` keeps every category;
  ``selective`` only PESSOA, ORGANIZACAO, LOCAL, TEMPO and VALOR (the
  BERT-era selective scenario).
* **OMITIDO**: its text and its entities stay, as a participant's run has
  them: the evaluation, not the system, leaves that text out (and the
  aligner numbers the words of a run with them there).

Labels are the category (``LOCAL``), or with ``types`` ``CAT:TIPO``.  Text is
the collection's running text with its character references read once
(``Net&amp;Tek`` is ``Net&Tek``, as the published BERTimbau files have it),
offsets on that text; ``harem import`` lays them back onto the collection's
text exactly.  CoNLL tokens are runs of letters and digits and single other
characters, cut into
sentences by ``sentence_ends``: both from the text alone, never from the entities, so the
file hands a model no gold boundary; an entity is written on the tokens it
touches, and one that crosses a sentence end is left out (counted).  Each
document opens with ``-DOCSTART- DOCID O``, which conlleval counts as an
``O`` token.  No entity keeps white space at an edge.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES, encode_spans
from harem_pipeline.formats.harem_json import (
    CharDocument,
    CharEntity,
    format_harem_json,
    format_span_jsonl,
)
from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.formats.hf import format_hf_row
from harem_pipeline.formats.spacy_docbin import DocLayout, docbin_bytes
from harem_pipeline.model import AltBlock, Collection, Document, Entity
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.tools.predictions.chars import TextMap, decode_references
from harem_pipeline.tools.predictions.merge import FORMATS

SCENARIOS = ("total", "selective")
SELECTIVE = frozenset({"PESSOA", "ORGANIZACAO", "LOCAL", "TEMPO", "VALOR"})
ALT_CHOICES = ("first", "best")
NO_CATEGORY = "OUTRO"

_TOKEN = re.compile(r"[^\W_]+|\S")


TRIMMED = "white space trimmed from an edge"
WIDENED = "widened to whole tokens (CoNLL)"
ADJUSTED = (TRIMMED, WIDENED)
"""Reasons an entity was written with other boundaries (not left out)."""
CONLL_LEFT_OUT = (
    "on no token (CoNLL)",
    "sharing a token with the entity before (CoNLL)",
    "crossing a sentence end (CoNLL)",
)
"""Reasons the CoNLL layout leaves out an entity the other formats write."""


@dataclass(slots=True)
class ExportSummary:
    """What an export wrote, what it adjusted and what it left out (one counter)."""

    documents: int = 0
    entities: int = 0
    left_out: Counter = field(default_factory=Counter)

    def format(self) -> str:
        def listed(items: list[tuple[str, int]]) -> str:
            return ", ".join(f"{n} {reason}" for reason, n in sorted(items))

        out = [(r, n) for r, n in self.left_out.items() if r not in ADJUSTED]
        adjusted = [(r, n) for r, n in self.left_out.items() if r in ADJUSTED]
        written = self.entities - sum(self.left_out[r] for r in CONLL_LEFT_OUT)
        return (
            f"{self.documents} documents, {written} entities exported"
            + (f"; adjusted: {listed(adjusted)}" if adjusted else "")
            + (f"; left out: {listed(out)}" if out else "")
            + "\n"
        )


# ---------------------------------------------------------------------------
# One flat layer of entities


def choose_alternative(block: AltBlock, alt: str) -> int:
    """The alternative ``alt`` (``first`` or ``best``) picks in an ALT block."""
    if alt == "first":
        return 0
    sizes = [len(entities) for entities in block.alternatives]
    return sizes.index(max(sizes))


def _moved(entity: Entity, block: AltBlock, k: int, text: str) -> Entity | None:
    """Entity of alternative ``k`` with offsets in the running text (None: cannot be)."""
    if k == 0 or block.alternative_texts[k] == block.alternative_texts[0]:
        return entity
    own, first = TextMap(block.alternative_texts[k]), TextMap(block.alternative_texts[0])
    if own.dense != first.dense:
        return None
    lo = own.to_dense(entity.start - block.start)
    hi = own.to_dense(entity.end - block.start)
    if hi <= lo:
        return None
    start, end = first.text_span(lo, hi - 1)
    start, end = block.start + start, block.start + end
    return replace(entity, text=text[start:end], start=start, end=end, line=entity.line)


def chosen_entities(
    doc: Document, alt: str = "first", left_out: Counter | None = None
) -> list[Entity]:
    """Plain and OMITIDO entities and each ALT block's chosen alternative, in text order.

    Offsets are in the running text.
    """
    left_out = Counter() if left_out is None else left_out
    chosen = list(doc.entities) + list(doc.omitted_entities)
    for block in doc.alt_blocks:
        k = choose_alternative(block, alt)
        moved = [_moved(e, block, k, doc.text) for e in block.alternatives[k]]
        if any(m is None for m in moved):
            left_out["ALT alternatives whose text differs (first taken)"] += 1
            moved = list(block.alternatives[0])
        chosen += [m for m in moved if m is not None]
    return sorted(chosen, key=lambda e: (e.start, e.end))


def _omitted(doc: Document, entity: Entity) -> bool:
    return any(s < entity.end and entity.start < e for s, e in doc.omitted)


def resolved_entities(
    doc: Document, alt: str = "first", left_out: Counter | None = None
) -> list[Entity]:
    """One flat layer: :func:`chosen_entities`, blank and overlapping ones left out."""
    left_out = Counter() if left_out is None else left_out
    kept: list[Entity] = []
    for entity in chosen_entities(doc, alt, left_out):
        if not entity.text.strip():
            left_out["blank"] += 1
        elif kept and entity.start < kept[-1].end:
            left_out["overlapping"] += 1
        else:
            kept.append(entity)
    return kept


def resolved_collection(cd: Collection, alt: str = "first") -> Collection:
    """The collection with every ALT block replaced by the alternative ``alt`` picks.

    OMITIDO regions and their entities stay (a chosen entity inside one joins
    them).  This is the golden side a run made from ``export --alt ALT`` must
    be scored against to reach P = R = F = 1: with the ALT blocks left in,
    AltinaID picks, per block, the alternative that suits the run best, and
    an export holds one alternative only.
    """
    documents = []
    for doc in cd.documents:
        chosen = chosen_entities(doc, alt)
        plain = tuple(e for e in chosen if not _omitted(doc, e))
        hidden = tuple(e for e in chosen if _omitted(doc, e))
        documents.append(replace(doc, entities=plain, alt_blocks=(), omitted_entities=hidden))
    return replace(cd, documents=tuple(documents))


def entity_label(entity: Entity, types: bool = False, kept: frozenset[str] | None = None) -> str:
    """``CAT`` (first of a vague one; ``OUTRO`` when none), or ``CAT:TIPO`` with ``types``.

    With ``kept`` (the selective categories), the first of a vague entity's
    categories that is kept; '' when none is.
    """
    categories = entity.categories or (NO_CATEGORY,)
    index = 0
    if kept is not None:
        index = next((i for i, c in enumerate(categories) if c in kept), -1)
        if index < 0:
            return ""
    category = categories[index]
    if types and len(entity.types) > index:
        return f"{category}:{entity.types[index]}"
    return category


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` without white space at its edges (models' tools refuse such
    entities, spaCy with E024; ``harem import`` trims them the same way)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def export_document(
    doc: Document,
    scenario: str = "total",
    alt: str = "first",
    types: bool = False,
    left_out: Counter | None = None,
) -> CharDocument:
    """One collection document as a character-offset document."""
    left_out = Counter() if left_out is None else left_out
    text, where = decode_references(doc.text)
    entities = []
    for entity in resolved_entities(doc, alt, left_out):
        label = entity_label(entity, types, SELECTIVE if scenario == "selective" else None)
        if not label:
            left_out["outside the selective scenario"] += 1
            continue
        start, end = trimmed(text, where[entity.start], where[entity.end])
        if (start, end) != (where[entity.start], where[entity.end]):
            left_out[TRIMMED] += 1
        entities.append(CharEntity(start, end, label, text[start:end]))
    return CharDocument(doc.docid, text, tuple(entities), doc.line)


def export_documents(
    cd: Collection,
    scenario: str = "total",
    alt: str = "first",
    types: bool = False,
    summary: ExportSummary | None = None,
) -> Iterator[CharDocument]:
    """Every document of the collection, in its order, as character-offset documents."""
    if scenario not in SCENARIOS:
        raise InputError(cd.path, f"a scenario among {', '.join(SCENARIOS)}", scenario)
    if alt not in ALT_CHOICES:
        raise InputError(cd.path, f"an ALT choice among {', '.join(ALT_CHOICES)}", alt)
    summary = ExportSummary() if summary is None else summary
    for doc in cd.documents:
        exported = export_document(doc, scenario, alt, types, summary.left_out)
        summary.documents += 1
        summary.entities += len(exported.entities)
        yield exported


# ---------------------------------------------------------------------------
# CoNLL


ABBREVIATIONS = frozenset(
    """sr sra srs sras dr dra drs dras prof profa profs eng arq av pe fr d s st sto sta
    dpto dep dept soc séc sec cia lda ltda co inc nº n no pág p pp vol ed cf etc jr gen cel
    cap ten sgt exmo exma mons mr mrs ms mt ap rev gov pres min sen maj alm brig mal cmdt
    cmte apt art tel fax ex""".split()
)
"""Words a ``.`` after which ends no sentence (compared in lower case), as a single letter
(an initial, ``W. JAMES``) or an ordinal (``1ª.``, ``3 o.``) ends none."""


def document_tokens(doc: CharDocument) -> list[tuple[int, int]]:
    """Token spans of a document's text: runs of letters and digits, single other
    characters, whole ``&...;`` references.  The text alone decides them, never the
    entities (a tokeniser that cut at the gold's boundaries would hand a model them)."""
    return [match.span() for match in _TOKEN.finditer(doc.text or "")]


def _no_stop_after(word: str) -> bool:
    """Whether ``word`` followed by ``.`` is an initial, an ordinal or an abbreviation."""
    return len(word) == 1 or word[-1] in "ªº" or word.lower() in ABBREVIATIONS


def sentence_ends(text: str, tokens: list[tuple[int, int]]) -> list[int]:
    """Indexes of the tokens after which a sentence ends: at a line end, or after ``.``,
    ``!`` or ``?`` and a blank before a capitalised token (not after an initial, an
    ordinal or an abbreviation, ``_no_stop_after``).  The text alone decides."""
    ends = []
    for i in range(len(tokens) - 1):
        gap = text[tokens[i][1] : tokens[i + 1][0]]
        word = text[tokens[i][0] : tokens[i][1]]
        if "\n" in gap:
            ends.append(i)
        elif word in ".!?" and gap and text[tokens[i + 1][0]].isupper():
            glued = i > 0 and tokens[i - 1][1] == tokens[i][0]
            before = text[tokens[i - 1][0] : tokens[i - 1][1]] if glued else ""
            if not (word == "." and before and _no_stop_after(before)):
                ends.append(i)
    if tokens:
        ends.append(len(tokens) - 1)
    return ends


@dataclass(frozen=True, slots=True)
class ConllLayout:
    """A document as CoNLL writes it: tokens, sentence ends, and each entity's tokens.

    An entity's tokens are those its characters touch (a boundary inside a
    token, as in text whose words run together, widens it to the whole
    token); an entity that would share a token with the one before, or that
    crosses a sentence end, cannot be written and is left out (``left_out``).
    """

    tokens: list[tuple[int, int]]
    ends: list[int]
    spans: list[tuple[int, int, str]]
    left_out: Counter

    def entities(self) -> list[tuple[int, int, str]]:
        """The written entities as characters ``(start, end, label)``, end exclusive."""
        return [(self.tokens[lo][0], self.tokens[hi - 1][1], label) for lo, hi, label in self.spans]


def conll_layout(doc: CharDocument, sentences: bool = True) -> ConllLayout:
    """The CoNLL layout of ``doc`` (see :class:`ConllLayout`); without ``sentences`` the
    document is one sequence (the ``hf`` rows), so no entity crosses a sentence end."""
    text = doc.text or ""
    tokens = document_tokens(doc)
    starts = [s for s, _ in tokens]
    ends = sentence_ends(text, tokens) if sentences else [len(tokens) - 1] if tokens else []
    left_out: Counter = Counter()
    spans: list[tuple[int, int, str]] = []
    for entity in sorted(doc.entities, key=lambda e: (e.start, e.end)):
        lo = max(bisect.bisect_right(starts, entity.start) - 1, 0)
        hi = bisect.bisect_left(starts, entity.end)
        if hi <= lo or tokens[lo][1] <= entity.start:
            left_out[CONLL_LEFT_OUT[0]] += 1
        elif spans and lo < spans[-1][1]:
            left_out[CONLL_LEFT_OUT[1]] += 1
        elif bisect.bisect_left(ends, lo) != bisect.bisect_left(ends, hi - 1):
            left_out[CONLL_LEFT_OUT[2]] += 1
        else:
            if (tokens[lo][0], tokens[hi - 1][1]) != (entity.start, entity.end):
                left_out[WIDENED] += 1
            spans.append((lo, hi, entity.label))
    return ConllLayout(tokens, ends, spans, left_out)


DOCSTART_TAG = "O"
"""The tag of a ``-DOCSTART- DOCID O`` line: conlleval, given the line with a
prediction column beside it, counts a token tagged ``O`` there, never an entity."""


def format_conll_document(
    doc: CharDocument, scheme: str = "iob2", left_out: Counter | None = None
) -> str:
    """``-DOCSTART- DOCID O``, then ``token tag`` lines, a blank line after each sentence.

    What the layout leaves out (or widens) is added to ``left_out``.
    """
    text = doc.text or ""
    layout = conll_layout(doc)
    if left_out is not None:
        left_out.update(layout.left_out)
    tokens = layout.tokens
    spans = [(lo, hi, frozenset((label,))) for lo, hi, label in layout.spans]
    tags = encode_spans(spans, len(tokens), scheme)
    out = [f"-DOCSTART- {doc.docid} {DOCSTART_TAG}\n\n"]
    begin = 0
    for end in layout.ends:
        out += [
            f"{text[s:e]} {tag}\n"
            for (s, e), tag in zip(tokens[begin : end + 1], tags[begin : end + 1], strict=True)
        ]
        out.append("\n")
        begin = end + 1
    return "".join(out)


# ---------------------------------------------------------------------------
# The command


def format_hf_document(
    doc: CharDocument, scheme: str = "iob2", left_out: Counter | None = None
) -> str:
    """One ``{"id", "tokens", "ner_tags"}`` row: the CoNLL tokens and tags of the whole
    document (see :mod:`harem_pipeline.formats.hf`)."""
    layout = conll_layout(doc, sentences=False)
    if left_out is not None:
        left_out.update(layout.left_out)
    text = doc.text or ""
    spans = [(lo, hi, frozenset((label,))) for lo, hi, label in layout.spans]
    tags = encode_spans(spans, len(layout.tokens), scheme)
    return format_hf_row(doc.docid, [text[s:e] for s, e in layout.tokens], tags)


def export_text(
    documents: Iterable[CharDocument],
    fmt: str,
    scheme: str = "iob2",
    left_out: Counter | None = None,
) -> Iterator[str]:
    """Pieces of the export file in ``fmt``, to be written in turn (what CoNLL cannot
    write is counted in ``left_out``)."""
    if fmt == "harem-json":
        yield from format_harem_json(documents)
    elif fmt == "jsonl":
        yield from format_span_jsonl(documents)
    elif fmt == "hf":
        for doc in documents:
            yield format_hf_document(doc, scheme, left_out)
    else:
        for doc in documents:
            yield format_conll_document(doc, scheme, left_out)


def default_output(cd: PathLike, fmt: str, scenario: str) -> Path:
    """Beside the collection: ``<name>.<scenario>.json``, ``.jsonl`` or ``.conll``."""
    suffix = {
        "harem-json": ".json",
        "jsonl": ".jsonl",
        "conll": ".conll",
        "hf": ".hf.jsonl",
        "spacy": ".spacy",
    }[fmt]
    name = Path(cd).name.removesuffix(".gz")
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return Path(cd).with_name(f"{stem}.{scenario}{suffix}")


def run_export(
    cd: PathLike,
    fmt: str,
    output: PathLike | None = None,
    scenario: str = "total",
    alt: str = "first",
    scheme: str = "iob2",
    types: bool = False,
) -> tuple[Path, ExportSummary]:
    """``harem export``: write the collection in ``fmt``, atomically, in UTF-8."""
    if fmt not in FORMATS:
        raise InputError(str(cd), f"an export format among {', '.join(FORMATS)}", fmt)
    if scheme not in SCHEMES or scheme == "lenient":
        raise InputError(str(cd), f"a tagging scheme among {', '.join(SCHEMES[1:])}", scheme)
    collection = read_collection(cd)
    summary = ExportSummary()
    documents = export_documents(collection, scenario, alt, types, summary)
    target = Path(output) if output is not None else default_output(cd, fmt, scenario)
    if fmt == "spacy":
        data = docbin_bytes((docbin_layout(doc, summary.left_out) for doc in documents), str(cd))
        with atomic_write(target, "wb", encoding=None, newline=None) as handle:
            handle.write(data)
        return target, summary
    with atomic_write(target, "w", encoding="utf-8") as handle:
        for piece in export_text(documents, fmt, scheme, summary.left_out):
            handle.write(piece)
    return target, summary


def docbin_layout(doc: CharDocument, left_out: Counter | None = None) -> DocLayout:
    """A document as a spaCy ``Doc`` is written: the CoNLL tokens and entities of the
    whole document (an entity inside a token widened to it, as CoNLL does), and the
    CoNLL sentence ends except inside an entity (a Doc's entity may cross one)."""
    layout = conll_layout(doc, sentences=False)
    if left_out is not None:
        left_out.update(layout.left_out)
    inside = {i for lo, hi, _ in layout.spans for i in range(lo, hi - 1)}
    ends = [end for end in sentence_ends(doc.text or "", layout.tokens) if end not in inside]
    return DocLayout(doc.docid, doc.text or "", layout.tokens, ends, layout.spans)
