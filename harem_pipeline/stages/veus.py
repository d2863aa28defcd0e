"""Véus: cut an ``.avalida`` file into an evaluation subset and apply a style.

A subset is chosen on two axes:

* **documents** — all of them (``total``), or those of one variant
  (``pt``, ``br``…) and/or one genre (``jornalistico``, ``web``…).  First
  HAREM files carry both on their document lines (``HAREM-251-04443 PT
  Web``); Second HAREM files (``DOC id``) need the collection's metadata
  (``colSegundoHAREM-meta.xml``, read with ``harem_meta.read_meta``);
* **categories** — a veil (see :mod:`harem_pipeline.formats.veils`): the evaluation
  veil keeps the categories, types and subtypes it names and drops the rest.

Then a **style** rewrites each alignment:

* ``harem`` keeps every record as it is (partial matches included); Vizir
  and the First HAREM measures need it;
* ``muc`` turns a partial match into one missing entity plus one spurious
  system entity, as the MUC conferences counted;
* ``relaxado`` keeps a one-to-one alignment as it is, and of a one-to-many
  alignment keeps only the run entities after the first that are not
  correct, as spurious records.  The gold record itself is dropped in that
  case: that is what the 2010 program does, and its reference outputs show
  it (``total_relaxado.veu``).

Everything here mirrors the 2010 Java program (``AlignmentFilter``, "Véus")
down to its quirks, since its outputs are the reference:

* the system's declared veil only matters for run entities with no
  category: they are dropped when the evaluation veil and the declared veil
  share nothing (compared down to types);
* a filtered entity's classic attributes (CATEG, TIPO, SUBTIPO) are rebuilt
  from a Java ``HashSet`` of (category, type, subtype) tuples, so the order
  of vague values follows Java's hash order, and an attribute that was
  absent is appended after the others;
* within a document, a run entity becomes a spurious record at most once,
  keyed by its ``ID`` (run IDs are not always unique; the reference files
  show later ones dropped too).  Entities without an ``ID`` (First HAREM
  files) are keyed by their whole tag and compared with the previous
  record only — the 2010 program, which knew no First HAREM files, would
  have collapsed all of them into one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    CORRECT_EVALUATION,
    EVAL_CORRECT,
    EVAL_MISSING,
    MARKER_FIRST_HAREM,
    MISSING_EVALUATION,
    SPURIOUS_EVALUATION,
    SPURIOUS_TAG,
    DocStart,
    DocumentLine,
    Evaluation,
    Header,
    Line,
    Record,
    Tag,
    format_tag,
    reprint_record,
)
from harem_pipeline.formats.veils import format_veil
from harem_pipeline.model import Veil
from harem_pipeline.text.java import java_hash_order, java_split_bar, java_string_hash
from harem_pipeline.text.memo import keyed_cache

STYLE_HAREM = "harem"
STYLE_MUC = "muc"
STYLE_RELAXED = "relaxado"
STYLES = (STYLE_HAREM, STYLE_MUC, STYLE_RELAXED)

TOTAL = "total"
SELECTIVE = "selectivo"

# First HAREM <GENERO> values and the names their subsets carry.  Other
# genres (Second HAREM TIPO_TEXTO) get the same normalisation without a
# special name: accents dropped, lower case, spaces as underscores.
FIRST_HAREM_GENRES: Mapping[str, str] = {
    "Web": "web",
    "Jornal": "jornalistico",
    "CorreioElectrónico": "correioelectronico",
    "Entrevista": "entrevista",
    "Expositivo": "expositivo",
    "Literário": "literario",
    "Político": "politico",
    "Técnico": "tecnico",
}

_EOL = "\n"  # the original program printed every line with println


# --------------------------------------------------------------------------
# Document subsets


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """What a document subset is decided on: its variant and its genres (as subset names)."""

    docid: str
    variant: str
    genres: tuple[str, ...]


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"[^0-9a-z]+", "_", plain.lower()).strip("_")


def genre_key(text: str) -> str:
    """The subset name of a genre: ``Jornal`` → ``jornalistico``, ``Técnico`` → ``tecnico``."""
    stripped = text.strip()
    if stripped in FIRST_HAREM_GENRES:
        return FIRST_HAREM_GENRES[stripped]
    folded = _fold(stripped)
    for original, name in FIRST_HAREM_GENRES.items():
        if folded == _fold(original):
            return name
    return folded


def variant_key(text: str) -> str:
    """The subset name of a variant: ``PT`` → ``pt``, ``pt_BR`` → ``br``."""
    return _fold(text.strip().rsplit("_", 1)[-1])


def subset_file_name(
    base: str, variant: str | None = None, genre: str | None = None, selective: bool = False
) -> str:
    """The output name of a subset, as the original files were named.

    ``run.alinhado.avalida.total``, ``….pt``, ``….pt.jornalistico``,
    ``….selectivo``, ``….selectivo.jornalistico``.
    """
    parts = [base]
    if selective:
        parts.append(SELECTIVE)
    if variant:
        parts.append(variant_key(variant))
    if genre:
        parts.append(genre_key(genre))
    if len(parts) == 1:
        parts.append(TOTAL)
    return ".".join(parts)


def document_infos(
    meta: Mapping[str, tuple[str | None, str | None]],
) -> dict[str, DocumentInfo]:
    """The collection metadata (``harem_meta.read_meta``) as subset names per document."""
    return {
        docid: DocumentInfo(
            docid,
            variant_key(variant or ""),
            tuple(genre_key(g) for g in (genre or "").split("|") if g),
        )
        for docid, (variant, genre) in meta.items()
    }


def _document_info(
    line: DocStart | DocumentLine, meta: Mapping[str, DocumentInfo] | None, source: str | None
) -> DocumentInfo:
    if isinstance(line, DocumentLine):
        return DocumentInfo(line.docid, variant_key(line.variant), (genre_key(line.genre),))
    if meta is None:
        raise InputError(
            source,
            "collection metadata (colSegundoHAREM-meta.xml, --meta) to choose documents "
            "by variant or genre",
            f"document 'DOC {line.docid}' without variant or genre",
            line=line.line or None,
        )
    info = meta.get(line.docid)
    if info is None:
        raise InputError(
            source,
            "a document listed in the collection metadata",
            line.docid,
            line=line.line or None,
        )
    return info


def subset_counts(infos: Iterable[DocumentInfo]) -> tuple[dict[str, int], dict[str, int]]:
    """Documents per variant and per genre subset name, most frequent first (ties by name).

    A document of two genres counts in both.  These are the names
    ``--variant``/``--genre`` (and the ``subsets`` of ``pipeline.yaml``) accept.
    """
    variants: dict[str, int] = {}
    genres: dict[str, int] = {}
    for info in infos:
        if info.variant:
            variants[info.variant] = variants.get(info.variant, 0) + 1
        for genre in dict.fromkeys(info.genres):
            genres[genre] = genres.get(genre, 0) + 1

    def ranked(counts: dict[str, int]) -> dict[str, int]:
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    return ranked(variants), ranked(genres)


def format_counts(counts: Mapping[str, int]) -> str:
    """``noticia 45, didactico 30`` (``none`` when empty)."""
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or "none"


def subset_problem(
    infos: Iterable[DocumentInfo], variant: str | None, genre: str | None
) -> tuple[str, str] | None:
    """Why the subset of ``variant``/``genre`` holds no document of ``infos``, if it holds none.

    ``(expected, found)`` for an ``InputError``: an unknown name lists the
    valid ones with their document counts; None when some document is kept.
    """
    infos = list(infos)
    if any(_keeps_document(info, variant, genre) for info in infos):
        return None
    variants, genres = subset_counts(infos)
    if not infos:
        return "at least one document", "no document"
    if variant is not None and variant_key(variant) not in variants:
        return f"a variant of the documents ({format_counts(variants)})", repr(variant)
    if genre is not None and genre_key(genre) not in genres:
        return f"a genre of the documents ({format_counts(genres)})", repr(genre)
    name = ".".join(n for n in (variant and variant_key(variant), genre and genre_key(genre)) if n)
    return (
        f"at least one document in the subset {name} "
        f"(variants: {format_counts(variants)}; genres: {format_counts(genres)})",
        "none",
    )


def _keeps_document(info: DocumentInfo, variant: str | None, genre: str | None) -> bool:
    if variant is not None and info.variant != variant_key(variant):
        return False
    return genre is None or genre_key(genre) in info.genres


# --------------------------------------------------------------------------
# Classic attributes, read and rebuilt as the Java program does


def is_name_categorised(tag: Tag) -> bool:
    """First HAREM tags carry their category as the element name (``<LOCAL TIPO="…">``)."""
    return tag.name != "EM" and tag.attr("CATEG") is None


def _categories(tag: Tag) -> list[str]:
    if is_name_categorised(tag):
        return java_split_bar(tag.name)
    return java_split_bar(tag.attr("CATEG"))


def _has_categories(tag: Tag) -> bool:
    return bool(_categories(tag))


AttributeTuple = tuple[str | None, str | None, str | None]


def _tuple_hash(item: AttributeTuple) -> int:
    cat, typ, sub = item
    result = 1
    for part in (cat, sub, typ):  # the order of the Java hashCode
        result = (31 * result + java_string_hash(part)) & 0xFFFFFFFF
    return result


def attribute_tuples(tag: Tag) -> list[AttributeTuple]:
    """The (category, type, subtype) tuples of an entity, in Java ``HashSet`` order.

    The i-th category goes with the i-th type and subtype; empty values
    count as absent.
    """
    cats = [c or None for c in _categories(tag)]
    types = [t or None for t in java_split_bar(tag.attr("TIPO"))]
    subs = [s or None for s in java_split_bar(tag.attr("SUBTIPO"))]
    items = [
        (cat, types[i] if i < len(types) else None, subs[i] if i < len(subs) else None)
        for i, cat in enumerate(cats)
    ]
    return java_hash_order(items, _tuple_hash)


def _set_attribute(
    attributes: list[tuple[str, str]], key: str, value: str | None
) -> list[tuple[str, str]]:
    """Set in place when present, append when new, remove when ``value`` is None."""
    if value is None:
        return [(k, v) for k, v in attributes if k != key]
    for index, (k, _) in enumerate(attributes):
        if k == key:
            attributes = list(attributes)
            attributes[index] = (key, value)
            return attributes
    return [*attributes, (key, value)]


def _with_classic(tag: Tag, tuples: Iterable[AttributeTuple]) -> Tag:
    """Rebuild CATEG/TIPO/SUBTIPO from tuples; an empty joined value removes the attribute."""
    items = list(tuples)
    cats = "|".join(c or "" for c, _, _ in items)
    types = "|".join(t or "" for _, t, _ in items)
    subs = "|".join(s or "" for _, _, s in items)
    attributes = list(tag.attributes)
    attributes = _set_attribute(attributes, "SUBTIPO", subs or None)
    attributes = _set_attribute(attributes, "TIPO", types or None)
    if is_name_categorised(tag):
        return Tag(cats or "EM", tuple(attributes), tag.text)
    attributes = _set_attribute(attributes, "CATEG", cats or None)
    return Tag(tag.name, tuple(attributes), tag.text)


def filter_tag(tag: Tag, veil: Veil) -> Tag:
    """Keep only the classic attributes of ``tag`` that ``veil`` shows.

    A category kept by a veil that names no types for it loses its type
    (and subtype); likewise a type whose veil entry names no subtypes.
    """
    valid: list[AttributeTuple] = []
    for cat, typ, sub in attribute_tuples(tag):
        if cat is None or not veil.contains_category(cat):
            continue
        if typ is None:
            valid.append((cat, typ, sub))
        elif not veil.has_types(cat):
            valid.append((cat, None, None))
        elif veil.contains_type(cat, typ):
            if sub is None:
                valid.append((cat, typ, sub))
            elif not veil.has_subtypes(cat, typ):
                valid.append((cat, typ, None))
            elif veil.contains_subtype(cat, typ, sub):
                valid.append((cat, typ, sub))
    return _with_classic(tag, java_hash_order(valid, _tuple_hash))


def spurious_tag(tag: Tag) -> Tag:
    """The gold side of a spurious record made from a run entity: its text, no attributes."""
    if is_name_categorised(tag):
        return Tag(SPURIOUS_TAG, (), tag.text)
    return Tag(tag.name, (("CATEG", SPURIOUS_TAG),), tag.text)


def add_value(tag: Tag, key: str, value: str, name_holds_categories: bool = False) -> Tag:
    """``NamedEntity.addAttributeValue``: append ``|value`` to the first ``key``
    attribute, or set it when absent or empty.

    With ``name_holds_categories`` a First HAREM tag named by its category
    (``<PESSOA …>``) takes new categories in its name, as the ALT organiser
    reads it; Véus's merge of correct entities sets a CATEG attribute instead.
    """
    if key == "CATEG" and name_holds_categories and is_name_categorised(tag):
        return Tag(f"{tag.name}|{value}" if tag.name else value, tag.attributes, tag.text)
    current = tag.attr(key)
    new = f"{current}|{value}" if current else value
    return Tag(tag.name, tuple(_set_attribute(list(tag.attributes), key, new)), tag.text)


def add_attribute_tuple(tag: Tag, item: AttributeTuple, name_holds_categories: bool = False) -> Tag:
    """``NamedEntity.addAttributeTuple``: one more vague (category, type, subtype)."""
    cat, typ, sub = (part or "" for part in item)
    if not (cat or _categories(tag)):
        return tag
    tag = add_value(tag, "CATEG", cat, name_holds_categories)
    if not (typ or java_split_bar(tag.attr("TIPO"))):
        return tag
    tag = add_value(tag, "TIPO", typ)
    if sub or java_split_bar(tag.attr("SUBTIPO")):
        tag = add_value(tag, "SUBTIPO", sub)
    return tag


def _merge_correct(tags: list[Tag]) -> Tag:
    """Several correct run entities for one gold entity become the first, with all tuples."""
    first = tags[0]
    known = attribute_tuples(first)
    for other in tags[1:]:
        for item in attribute_tuples(other):
            if item not in known:
                first = add_attribute_tuple(first, item)
    return first


# --------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True)
class Alignment:
    """A record's gold entity and its (entity, evaluation) pairs; entity None is [null]."""

    gold: Tag
    pairs: tuple[tuple[Tag | None, Evaluation], ...]
    suffix: str = ""


def _alignment_of(record: Record, source: str | None = None) -> Alignment:
    evaluation = _checked_evaluation(record, source)
    entities: tuple[Tag | None, ...] = record.system if record.system else (None,)
    return Alignment(record.gold, tuple(zip(entities, evaluation, strict=False)), record.suffix)


def _checked_evaluation(record: Record, source: str | None) -> tuple[Evaluation, ...]:
    """The record's items, at least one per aligned entity (``[null]`` counts one)."""
    evaluation = record.evaluation or ()
    texts = record.system_texts
    entities = len(texts) if texts else 1
    if len(evaluation) < entities:
        raise InputError(
            source,
            "one evaluation per aligned entity (an .avalida file)",
            f"{entities} entities and {len(evaluation)} evaluations",
            line=record.line or None,
        )
    return evaluation


def _record_of(alignment: Alignment) -> Record:
    entities = [entity for entity, _ in alignment.pairs]
    system = None if entities == [None] else tuple(e for e in entities if e is not None)
    return Record(
        alignment.gold,
        system,
        tuple(evaluation for _, evaluation in alignment.pairs),
        MARKER_FIRST_HAREM,
        alignment.suffix,
        _EOL,
    )


def filter_alignment(
    alignment: Alignment, veil: Veil, system_veil: Veil | None = None
) -> Alignment | None:
    """Apply the evaluation veil to one alignment; None when nothing of it is left.

    ``system_veil`` None stands for the whole grid, which every evaluation
    veil intersects.
    """
    pairs = list(alignment.pairs)
    null_aligned = any(e is None for e, _ in pairs)
    disjoint = system_veil is not None and not veil.intersects(system_veil)
    if not null_aligned and disjoint:
        pairs = [(e, ev) for e, ev in pairs if e is not None and _has_categories(e)]
    gold = alignment.gold
    if not gold.is_spurious:
        filtered_gold = filter_tag(gold, veil)
    elif not pairs:
        return None
    else:
        filtered_gold = gold
    kept: list[tuple[Tag, Evaluation]] = []
    if not any(e is None for e, _ in pairs):
        for entity, evaluation in pairs:
            if entity is None:
                continue
            filtered = filter_tag(entity, veil)
            if _has_categories(filtered) or not _has_categories(entity):
                kept.append((filtered, evaluation))
    if not _has_categories(filtered_gold) and _has_categories(gold):
        filtered_gold = spurious_tag(filtered_gold)
    gold_spurious = filtered_gold.is_spurious
    if gold_spurious and not kept:
        return None
    if not kept:
        return Alignment(filtered_gold, ((None, MISSING_EVALUATION),), alignment.suffix)
    new_pairs = tuple((e, SPURIOUS_EVALUATION if gold_spurious else ev) for e, ev in kept)
    return Alignment(filtered_gold, new_pairs, alignment.suffix)


class SpuriousMemory:
    """Which run entities of the current document already became spurious records."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.previous_untagged: set[str] = set()
        self.current_untagged: set[str] = set()

    def next_record(self) -> None:
        """The record read becomes the previous one (nothing to move when neither holds any)."""
        if self.current_untagged or self.previous_untagged:
            self.previous_untagged = self.current_untagged
            self.current_untagged = set()

    def first_time(self, entity: Tag) -> bool:
        ident = entity.attr("ID")
        if ident is not None:
            if ident in self.ids:
                return False
            self.ids.add(ident)
            return True
        key = format_tag(entity)
        self.current_untagged.add(key)
        return key not in self.previous_untagged


def _spurious_alignment(entity: Tag) -> Alignment:
    return Alignment(spurious_tag(entity), ((entity, SPURIOUS_EVALUATION),))


@keyed_cache()
def unchanged_by_style(style: str, kinds: tuple[str, ...]) -> bool:
    """Whether ``style`` keeps an alignment with these verdicts as it is.

    ``harem`` keeps every alignment; ``relaxado`` and ``muc`` a one-to-one
    one, ``muc`` only when it is ``Correcto`` or ``Em_Falta``.  The decision
    on Véus's key: under the whole veil such a record is written as read.
    """
    if style == STYLE_HAREM:
        return True
    return len(kinds) == 1 and (style == STYLE_RELAXED or kinds[0] in (EVAL_CORRECT, EVAL_MISSING))


def adjust_alignment(alignment: Alignment, style: str, memory: SpuriousMemory) -> list[Alignment]:
    """Rewrite one alignment in the ``muc`` or ``relaxado`` style."""
    pairs = alignment.pairs
    if unchanged_by_style(style, tuple([evaluation.kind for _, evaluation in pairs])):
        return [alignment]
    gold_spurious = alignment.gold.is_spurious
    out: list[Alignment] = []
    if len(pairs) == 1:
        entity, evaluation = pairs[0]
        if not gold_spurious:
            out.append(Alignment(alignment.gold, ((None, MISSING_EVALUATION),)))
        if entity is not None and memory.first_time(entity):
            out.append(_spurious_alignment(entity))
        return out
    rest = list(pairs)
    if style == STYLE_RELAXED:
        rest = rest[1:]
    else:
        correct = [e for e, ev in pairs if ev.kind == EVAL_CORRECT and e is not None]
        if correct:
            out.append(Alignment(alignment.gold, ((_merge_correct(correct), CORRECT_EVALUATION),)))
        elif not gold_spurious:
            out.append(Alignment(alignment.gold, ((None, MISSING_EVALUATION),)))
    for entity, evaluation in rest:
        if evaluation.kind != EVAL_CORRECT and entity is not None and memory.first_time(entity):
            out.append(_spurious_alignment(entity))
    return out


# --------------------------------------------------------------------------
# The stage


def check_style(style: str) -> str:
    if style.lower() not in STYLES:
        raise InputError(None, f"a Véus style ({', '.join(STYLES)})", repr(style))
    return style.lower()


class VeusSubset:
    """One Véus pass, the subset of an ``.avalida`` file: :meth:`apply` streams it.

    ``veil`` is the evaluation veil; ``system_veil`` the one the run
    declared (None: everything).  ``variant``/``genre`` keep only matching
    documents (Second HAREM files need ``meta``, see :func:`document_infos`).
    ``source`` names the input in error messages.  The state: which document
    is open, whether it is kept, the spurious memory.
    """

    def __init__(
        self,
        style: str,
        veil: Veil,
        system_veil: Veil | None = None,
        variant: str | None = None,
        genre: str | None = None,
        meta: Mapping[str, DocumentInfo] | None = None,
        source: str | None = None,
    ) -> None:
        self.style = check_style(style)
        self.veil = veil
        self.system_veil = system_veil
        self.variant = variant
        self.genre = genre
        self.meta = meta
        self.source = source
        self.subsetting = variant is not None or genre is not None
        self.in_document = False
        self.keep = False
        self.kept = 0
        self.seen: list[DocumentInfo] = []
        self.memory = SpuriousMemory()

    def header(self) -> Header:
        """The veil line every subset starts with."""
        return Header(format_veil(self.veil), eol=_EOL)

    def line(self, line: Line) -> list[Line]:
        """What one input line becomes: nothing, itself, or records (a list: most are one)."""
        if isinstance(line, Record):
            if self.in_document and self.keep:
                return self.record(line)
            return []
        if isinstance(line, DocStart | DocumentLine):
            self.in_document = True
            if self.subsetting:
                info = _document_info(line, self.meta, self.source)
                self.seen.append(info)
                self.keep = _keeps_document(info, self.variant, self.genre)
            else:
                self.keep = True
            self.kept += self.keep
            self.memory = SpuriousMemory()
        elif not (self.in_document and self.keep):
            return []
        if not self.keep:
            return []
        return [line if line.eol == _EOL else replace(line, eol=_EOL)]

    def record(self, record: Record) -> list[Line]:
        """What one record of a kept document becomes."""
        self.memory.next_record()
        record = reprint_record(record)
        if self.veil.everything:
            evaluation = _checked_evaluation(record, self.source)
            if unchanged_by_style(self.style, tuple([item.kind for item in evaluation])):
                return [record.rewritten(MARKER_FIRST_HAREM, _EOL)]
            alignment: Alignment | None = _alignment_of(record, self.source)
        else:
            alignment = filter_alignment(
                _alignment_of(record, self.source), self.veil, self.system_veil
            )
        if alignment is None:
            return []
        return [
            _record_of(adjusted)
            for adjusted in adjust_alignment(alignment, self.style, self.memory)
        ]

    def lines(self, lines: Iterable[Line]) -> Iterator[Line]:
        """What ``lines`` become, lazily (a whole file, or a part that starts at a document)."""
        line = self.line
        for item in lines:
            yield from line(item)

    def finish(self) -> None:
        """A subset that kept no document would score nothing: say why instead."""
        if not self.kept:
            problem = subset_problem(self.seen, self.variant, self.genre)
            raise InputError(self.source, *(problem or ("at least one document", "none")))

    def apply(self, lines: Iterable[Line]) -> Iterator[Line]:
        """Stream the subset: the veil header, then its documents.

        Lines before the first document (file-name headers) are not copied;
        every line is written with ``\\n``, as the original program did,
        records with the ``:`` marker.  A subset that keeps no document would
        score nothing: once the input is read, ``InputError`` says why (an
        unknown variant or genre lists the valid names, with their counts).
        """
        yield self.header()
        yield from self.lines(lines)
        self.finish()
