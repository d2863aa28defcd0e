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
the collection's running text verbatim (character references such as
``&amp;`` included), so offsets are the collection's own and ``harem
import`` lays them back exactly.  CoNLL tokens are runs of letters and
digits, single other characters and whole ``&...;`` references, cut at
entity boundaries; a sentence ends at a line end, or after ``.``, ``!`` or
``?`` before a capitalised token, never inside an entity; each document
opens with ``-DOCSTART- DOCID``.
"""

from __future__ import annotations

import bisect
import os
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
from harem_pipeline.model import AltBlock, Collection, Document, Entity
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.tools.predictions import FORMATS, TextMap

SCENARIOS = ("total", "selective")
SELECTIVE = frozenset({"PESSOA", "ORGANIZACAO", "LOCAL", "TEMPO", "VALOR"})
ALT_CHOICES = ("first", "best")
NO_CATEGORY = "OUTRO"

_TOKEN = re.compile(r"&#?\w+;|[^\W_]+|\S")


@dataclass(slots=True)
class ExportSummary:
    """What an export wrote and what it left out."""

    documents: int = 0
    entities: int = 0
    left_out: Counter = field(default_factory=Counter)

    def format(self) -> str:
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(self.left_out.items()))
        return (
            f"{self.documents} documents, {self.entities} entities exported"
            + (f"; left out: {why}" if why else "")
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


def export_document(
    doc: Document,
    scenario: str = "total",
    alt: str = "first",
    types: bool = False,
    left_out: Counter | None = None,
) -> CharDocument:
    """One collection document as a character-offset document."""
    left_out = Counter() if left_out is None else left_out
    entities = []
    for entity in resolved_entities(doc, alt, left_out):
        label = entity_label(entity, types, SELECTIVE if scenario == "selective" else None)
        if not label:
            left_out["outside the selective scenario"] += 1
            continue
        entities.append(CharEntity(entity.start, entity.end, label, entity.text))
    return CharDocument(doc.docid, doc.text, tuple(entities), doc.line)


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


def document_tokens(doc: CharDocument) -> list[tuple[int, int]]:
    """Token spans of a document's text, cut at its entities' boundaries."""
    text = doc.text or ""
    cuts = sorted({x for e in doc.entities for x in (e.start, e.end)})
    spans = []
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        k = bisect.bisect_right(cuts, start)
        while k < len(cuts) and cuts[k] < end:
            spans.append((start, cuts[k]))
            start = cuts[k]
            k += 1
        spans.append((start, end))
    return spans


def _sentence_ends(text: str, tokens: list[tuple[int, int]], inside: list[bool]) -> list[int]:
    """Indexes after which a sentence ends (never inside an entity)."""
    ends = []
    for i in range(len(tokens) - 1):
        if inside[i]:
            continue
        gap = text[tokens[i][1] : tokens[i + 1][0]]
        word = text[tokens[i][0] : tokens[i][1]]
        following = text[tokens[i + 1][0]]
        if "\n" in gap or (word in ".!?" and gap and following.isupper()):
            ends.append(i)
    ends.append(len(tokens) - 1)
    return ends


def format_conll_document(doc: CharDocument, scheme: str = "iob2") -> str:
    """``-DOCSTART- DOCID``, then ``token tag`` lines, a blank line after each sentence."""
    text = doc.text or ""
    tokens = document_tokens(doc)
    starts = [s for s, _ in tokens]
    spans = []
    for entity in doc.entities:
        lo = bisect.bisect_left(starts, entity.start)
        hi = bisect.bisect_left(starts, entity.end)
        spans.append((lo, hi, frozenset((entity.label,))))
    tags = encode_spans(spans, len(tokens), scheme)
    inside = [False] * len(tokens)
    for lo, hi, _ in spans:
        for i in range(lo, hi - 1):
            inside[i] = True
    out = [f"-DOCSTART- {doc.docid}\n\n"]
    begin = 0
    for end in _sentence_ends(text, tokens, inside) if tokens else ():
        out += [
            f"{text[s:e]} {tag}\n"
            for (s, e), tag in zip(tokens[begin : end + 1], tags[begin : end + 1], strict=True)
        ]
        out.append("\n")
        begin = end + 1
    return "".join(out)


# ---------------------------------------------------------------------------
# The command


def export_text(documents: Iterable[CharDocument], fmt: str, scheme: str = "iob2") -> Iterator[str]:
    """Pieces of the export file in ``fmt``, to be written in turn."""
    if fmt == "harem-json":
        yield from format_harem_json(documents)
    elif fmt == "jsonl":
        yield from format_span_jsonl(documents)
    else:
        for doc in documents:
            yield format_conll_document(doc, scheme)


def default_output(cd: str | os.PathLike[str], fmt: str, scenario: str) -> Path:
    """Beside the collection: ``<name>.<scenario>.json``, ``.jsonl`` or ``.conll``."""
    suffix = {"harem-json": ".json", "jsonl": ".jsonl", "conll": ".conll"}[fmt]
    name = Path(cd).name.removesuffix(".gz")
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return Path(cd).with_name(f"{stem}.{scenario}{suffix}")


def run_export(
    cd: str | os.PathLike[str],
    fmt: str,
    output: str | os.PathLike[str] | None = None,
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
    with atomic_write(target, "w", encoding="utf-8") as handle:
        for piece in export_text(documents, fmt, scheme):
            handle.write(piece)
    return target, summary
