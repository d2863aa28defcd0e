"""Vizir: scoring the morphological classification (``MORF``) of aligned entities.

The rules are those of the HAREM Vizir documentation (2005), reproduced in
``docs/spec/vizir-altinamor-ida2mor.md``.  They are written here as pure
functions on plain values, from the smallest up:

* ``score_field`` — one field (gender or number) of the evaluated entity;
* ``combine_outcomes`` — the *Combinada* field from the two others;
* ``evaluated_index`` — which aligned system entity is evaluated (the first
  one sharing GOLD's first atom);
* ``judge_alignment`` — a whole record under a scenario, including the
  missing / spurious / ignored cases;

and on top of them ``score_record`` (one parsed record) and
``score_lines`` (a stream of parsed lines → ``.vizir`` lines).  Only
``run_vizir`` touches files, through the format modules.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    ARROW,
    EVAL_CORRECT,
    IDENTIFICATION_KINDS,
    MARKER_FIRST_HAREM,
    NULL_LIST,
    PARTIAL_KINDS,
    AltClose,
    AltOpen,
    Blank,
    DocEnd,
    DocStart,
    DocumentLine,
    Header,
    Line,
    ManualCheck,
    Omitted,
    Record,
    Tag,
    format_line,
    parse_evaluation,
    parse_line,
)
from harem_pipeline.formats.vizir import (
    SINGLE_RECORD,
    SPECIAL_LINES,
    UNDERSPECIFIED,
    MorphScore,
    Outcome,
    RawLine,
    RawTag,
    TagHead,
    format_morph_items,
    format_raw_tag,
    split_canonical_record,
    tag_head,
    vizir_record,
)
from harem_pipeline.model import Morf, Scenario
from harem_pipeline.text.atoms import atoms

SCENARIO_NAMES = {Scenario.ABSOLUTE: "absoluto", Scenario.RELATIVE: "relativo"}
SCENARIO_HEADER = " Cenário: "
"""The text of the ``#`` line that opens a ``.vizir`` file (and so its ``.altmor``)."""


def scenario_header(scenario: Scenario, eol: str = "\n") -> Header:
    """``# Cenário: absoluto``: the scenario, recorded in the file Vizir writes."""
    return Header(SCENARIO_HEADER + SCENARIO_NAMES[scenario], eol)


def header_scenario(line: Line) -> Scenario | None:
    """The scenario a ``# Cenário: …`` header line names (None for any other line)."""
    if not isinstance(line, Header) or not line.text.startswith(SCENARIO_HEADER):
        return None
    name = line.text[len(SCENARIO_HEADER) :].strip()
    for scenario, word in SCENARIO_NAMES.items():
        if name == word:
            return scenario
    return None


# ---------------------------------------------------------------------------
# One field, the combined field
# ---------------------------------------------------------------------------


def score_field(gold: str, system: str | None, partial: bool) -> Outcome:
    """Score one field (a gender or a number value) of the evaluated system entity.

    ``system`` is ``None`` when the entity carries no MORF at all; ``partial``
    says the identification was only partially correct, which halves a
    correct answer and softens over-specification (the table of
    docs/spec/vizir-altinamor-ida2mor.md §2).
    """
    if system is None:
        return Outcome.EM_FALTA
    if gold == UNDERSPECIFIED:
        if system == UNDERSPECIFIED:
            return Outcome.PARCIALMENTE_CORRECTO if partial else Outcome.CORRECTO
        return Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO if partial else Outcome.SOBRE_ESPECIFICADO
    if system == UNDERSPECIFIED:
        return Outcome.EM_FALTA
    if system == gold:
        return Outcome.PARCIALMENTE_CORRECTO if partial else Outcome.CORRECTO
    return Outcome.INCORRECTO


_WRONG = frozenset(
    {Outcome.INCORRECTO, Outcome.SOBRE_ESPECIFICADO, Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO}
)


def combine_outcomes(gender: Outcome, number: Outcome) -> Outcome:
    """The *Combinada* outcome: any error wins, then a gap, then partial credit.

    Order (original's table): Incorrecto/over-specified in either field →
    Incorrecto; else Em Falta in either → Em Falta; else Parcialmente
    Correcto in either → Parcialmente Correcto; else Correcto.  Espúrio only
    meets Espúrio (a spurious record is spurious in every field).
    """
    if gender is Outcome.ESPURIO or number is Outcome.ESPURIO:
        if gender is number:
            return Outcome.ESPURIO
        raise ValueError("Espúrio combines only with Espúrio")
    if gender in _WRONG or number in _WRONG:
        return Outcome.INCORRECTO
    if Outcome.EM_FALTA in (gender, number):
        return Outcome.EM_FALTA
    if Outcome.PARCIALMENTE_CORRECTO in (gender, number):
        return Outcome.PARCIALMENTE_CORRECTO
    return Outcome.CORRECTO


def score_morph(gold: Morf, system: Morf | None, partial: bool) -> MorphScore:
    """The three fields of a non-spurious record whose evaluated entity is ``system``."""
    gender = score_field(gold.gender, system.gender if system else None, partial)
    number = score_field(gold.number, system.number if system else None, partial)
    return MorphScore(gender, number, combine_outcomes(gender, number))


def uniform_score(outcome: Outcome) -> MorphScore:
    """The same outcome in all three fields (missing and spurious records)."""
    return MorphScore(outcome, outcome, outcome)


# ---------------------------------------------------------------------------
# Which system entity is evaluated
# ---------------------------------------------------------------------------


def first_atom(text: str) -> str | None:
    """The first atom of an entity's text (``None`` for a text without letters or digits)."""
    found = atoms(text)
    return found[0] if found else None


def evaluated_index(gold_text: str, system_texts: Sequence[str]) -> int | None:
    """Index of the system entity Vizir evaluates, or ``None`` when none qualifies.

    Only the first system entity whose first atom equals GOLD's first atom is
    evaluated; the others count nowhere (original, examples 3 and 5).
    """
    gold_atom = cached_first_atom(gold_text)
    if gold_atom is None:
        return None
    for index, text in enumerate(system_texts):
        if cached_first_atom(text) == gold_atom:
            return index
    return None


# ---------------------------------------------------------------------------
# A whole record on plain values
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SystemEntity:
    """What Vizir needs of one aligned system entity."""

    text: str
    morf: Morf | None
    partial: bool  # identification Parcialmente_Correcto_* rather than Correcto


@dataclass(frozen=True, slots=True)
class Alignment:
    """What Vizir needs of one alignment record, free of any file syntax.

    ``system`` is ``None`` for a missing record (``[null]``).
    """

    gold_text: str
    gold_morf: Morf | None
    spurious: bool
    system: tuple[SystemEntity, ...] | None


def judge_alignment(alignment: Alignment, scenario: Scenario) -> MorphScore | None:
    """The verdict of one record, or ``None`` when it is ignored or excluded.

    The special records are those of docs/spec/vizir-altinamor-ida2mor.md §2.

    ``None`` records are written nowhere and count nowhere.
    """
    if alignment.spurious:
        if scenario is Scenario.RELATIVE or not alignment.system:
            return None
        morf = alignment.system[0].morf
        if morf is None or (morf.gender == UNDERSPECIFIED and morf.number == UNDERSPECIFIED):
            return None
        return uniform_score(Outcome.ESPURIO)
    if alignment.gold_morf is None:
        return None
    if alignment.system is None:
        return uniform_score(Outcome.EM_FALTA) if scenario is Scenario.ABSOLUTE else None
    index = evaluated_index(alignment.gold_text, [e.text for e in alignment.system])
    if index is None:
        return uniform_score(Outcome.EM_FALTA)
    entity = alignment.system[index]
    return score_morph(alignment.gold_morf, entity.morf, entity.partial)


def counts_for_system(alignment: Alignment) -> bool:
    """Whether a scored record adds one to *Total classificadas pelo sistema*.

    The rule is docs/spec/vizir-altinamor-ida2mor.md §5.

    A scored spurious record does; otherwise the evaluated system entity must
    exist and carry a MORF attribute (``?,?`` included, original example 11).
    """
    if not alignment.system:
        return False
    if alignment.spurious:
        return alignment.system[0].morf is not None
    index = evaluated_index(alignment.gold_text, [e.text for e in alignment.system])
    return index is not None and alignment.system[index].morf is not None


def any_system_morph(alignments: Iterable[Alignment]) -> bool:
    """Whether any aligned system entity carries MORF (else Vizir writes nothing)."""
    return any(e.morf is not None for a in alignments for e in (a.system or ()))


# ---------------------------------------------------------------------------
# Parsed records and line streams
# ---------------------------------------------------------------------------


def tag_morph(tag: Tag, path: str | None = None, line: int | None = None) -> Morf | None:
    """The MORF of a tag, ``None`` when absent; a malformed value is an input error."""
    value = tag.morf
    return None if value is None else Morf.parse(value, path, line)


def alignment_from_record(record: Record, path: str | None = None) -> Alignment:
    """What Vizir needs of a Véus record: texts, MORF values and identification verdicts.

    The identification list must give one item per system entity, and the
    evaluated entity must be ``Correcto`` or partially correct (the
    ``harem`` Véus style); anything else is reported with its line.
    """
    line = record.line or None
    spurious = record.gold.is_spurious
    gold_morf = None if spurious else tag_morph(record.gold, path, line)
    if record.system is None:
        return Alignment(record.gold.text, gold_morf, spurious, None)
    evaluation = record.evaluation
    if evaluation is None:
        raise InputError(path, "an evaluated record ...:[EVAL, ...]", "no evaluation", line=line)
    if not spurious and len(evaluation) != len(record.system):
        raise InputError(
            path,
            f"one evaluation item per system entity ({len(record.system)})",
            f"{len(evaluation)} items",
            line=line,
        )
    entities = tuple(
        SystemEntity(
            tag.text,
            tag_morph(tag, path, line),
            not spurious and evaluation[i].kind in PARTIAL_KINDS,
        )
        for i, tag in enumerate(record.system)
    )
    alignment = Alignment(record.gold.text, gold_morf, spurious, entities)
    if not spurious and gold_morf is not None:
        index = evaluated_index(alignment.gold_text, [e.text for e in entities])
        if index is not None and evaluation[index].kind not in (EVAL_CORRECT, *PARTIAL_KINDS):
            raise InputError(
                path,
                "Correcto or Parcialmente_Correcto_* for an aligned entity (Véus style harem)",
                evaluation[index].text,
                line=line,
            )
    return alignment


def alignment_from_scored_record(record: Record, path: str | None = None) -> Alignment:
    """What the later stages need of a ``.vizir`` record (identification no longer matters)."""
    line = record.line or None
    spurious = record.gold.is_spurious
    gold_morf = None if spurious else tag_morph(record.gold, path, line)
    system = None
    if record.system is not None:
        system = tuple(
            SystemEntity(tag.text, tag_morph(tag, path, line), False) for tag in record.system
        )
    return Alignment(record.gold.text, gold_morf, spurious, system)


@dataclass(slots=True)
class VizirTally:
    """What a pass of ``score_lines`` saw: filled in as the stream is consumed."""

    records: int = 0
    scored: int = 0
    system_morph_seen: bool = False


_COPIED = (DocStart, DocEnd, DocumentLine, AltOpen, AltClose, Blank)
_DROPPED = (Header, ManualCheck, Omitted)


def score_lines(
    lines: Iterable[Line],
    scenario: Scenario,
    path: str | None = None,
    tally: VizirTally | None = None,
) -> Iterator[Line]:
    """Turn a stream of Véus lines into the stream of ``.vizir`` lines.

    The rules are docs/spec/vizir-altinamor-ida2mor.md §1–3.

    Document and ALT lines (and blank lines) are copied; headers, manual
    revision and omission lines are dropped; each record is scored, or
    dropped when ignored or excluded.  ``tally`` (if given) learns whether
    any system entity carried MORF, which decides the no-output rule.
    """
    tally = tally if tally is not None else VizirTally()
    for item in lines:
        scored = score_line(item, scenario, path, tally)
        if scored is not None:
            yield scored


def score_line(item: Line, scenario: Scenario, path: str | None, tally: VizirTally) -> Line | None:
    """The ``.vizir`` line of one Véus line (None: dropped), counted in ``tally``."""
    if isinstance(item, Record):
        tally.records += 1
        alignment = alignment_from_record(item, path)
        if not tally.system_morph_seen and any_system_morph((alignment,)):
            tally.system_morph_seen = True
        score = judge_alignment(alignment, scenario)
        if score is None:
            return None
        tally.scored += 1
        return vizir_record(item, score)
    if isinstance(item, _COPIED):
        return item
    if not isinstance(item, _DROPPED):
        found = type(item).__name__
        raise InputError(path, "a Véus result line", found, line=item.line or None)
    return None


# ---------------------------------------------------------------------------
# The fast path: Véus lines as text
#
# ``score_raw_lines`` gives the text ``score_lines`` + ``format_line`` give,
# line for line, without building a ``Record``: a canonical record
# (``formats.vizir.split_canonical_record``) is judged from its cached tag
# heads, first atoms and verdict texts; any other line, or a record whose
# judgement would raise an error, goes through ``parse_line`` and
# ``score_line``.

_FIRST_ATOMS: dict[str, str | None] = {}
_ITEM_KINDS: dict[str, str | None] = {}
_VERDICT_TEXTS: dict[tuple[TagHead, TagHead, bool], str] = {}
_CACHE_LIMIT = 1 << 14


def cached_first_atom(text: str) -> str | None:
    """:func:`first_atom`, remembered for the last few thousand distinct texts."""
    try:
        return _FIRST_ATOMS[text]
    except KeyError:
        if len(_FIRST_ATOMS) >= _CACHE_LIMIT:
            _FIRST_ATOMS.clear()
        atom = _FIRST_ATOMS[text] = first_atom(text)
        return atom


def evaluated_raw_index(gold_text: str, system: Sequence[RawTag]) -> int | None:
    """:func:`evaluated_index` of a canonical record's texts, with cached first atoms."""
    gold_atom = cached_first_atom(gold_text)
    if gold_atom is None:
        return None
    for index, (_, text) in enumerate(system):
        if text == gold_text or cached_first_atom(text) == gold_atom:
            return index
    return None


def identification_kind(item: str) -> str | None:
    """The kind of an identification evaluation item, None for any other item or a bad one."""
    try:
        return _ITEM_KINDS[item]
    except KeyError:
        kind = None
        try:
            kind = parse_evaluation(item).kind
        except InputError:
            pass
        if kind not in IDENTIFICATION_KINDS:
            kind = None
        if len(_ITEM_KINDS) >= _CACHE_LIMIT:
            _ITEM_KINDS.clear()
        _ITEM_KINDS[item] = kind
        return kind


def verdict_text(gold: TagHead, system: TagHead, partial: bool) -> str:
    """``format_morph_items(score_morph(...))`` of two valid heads' MORF, remembered."""
    key = (gold, system, partial)
    text = _VERDICT_TEXTS.get(key)
    if text is None:
        if len(_VERDICT_TEXTS) >= _CACHE_LIMIT:
            _VERDICT_TEXTS.clear()
        assert gold.morph is not None
        score = score_morph(gold.morph, system.morph, partial)
        text = _VERDICT_TEXTS[key] = format_morph_items(score)
    return text


_UNIFORM_TEXTS = {
    outcome: format_morph_items(uniform_score(outcome))
    for outcome in (Outcome.ESPURIO, Outcome.EM_FALTA)
}
_FALLBACK = object()
_ACCEPTED_KINDS = (EVAL_CORRECT, *PARTIAL_KINDS)


def judge_heads(
    gold: TagHead,
    system: Sequence[TagHead] | None,
    kinds: Sequence[str],
    index: int | None,
    absolute: bool,
) -> tuple[str | None, bool] | object:
    """``(verdict text or None when dropped, any system MORF)`` of a canonical record.

    ``judge_alignment`` and the checks of ``alignment_from_record`` on what
    a record's verdict depends on: its tag heads, its identification kinds
    and which system entity is evaluated (``index``).  ``_FALLBACK`` when
    the general path would report an error.
    """
    spurious = gold.spurious
    if not spurious and gold.morph_error:
        return _FALLBACK
    if system is None:
        if spurious or gold.morph is None or not absolute:
            return None, False
        return _UNIFORM_TEXTS[Outcome.EM_FALTA], False
    morph_seen = False
    for head in system:
        if head.morph_error:
            return _FALLBACK
        if head.morph is not None:
            morph_seen = True
    if spurious:
        morph = system[0].morph
        if (
            not absolute
            or morph is None
            or (morph.gender == UNDERSPECIFIED and morph.number == UNDERSPECIFIED)
        ):
            return None, morph_seen
        return _UNIFORM_TEXTS[Outcome.ESPURIO], morph_seen
    if gold.morph is None:
        return None, morph_seen
    if index is None:
        return _UNIFORM_TEXTS[Outcome.EM_FALTA], morph_seen
    kind = kinds[index]
    if kind not in _ACCEPTED_KINDS:
        return _FALLBACK
    return verdict_text(gold, system[index], kind != EVAL_CORRECT), morph_seen


def score_raw_record(body: str, absolute: bool) -> tuple[str | None, bool] | object:
    """``(the .vizir text or None when dropped, any system MORF)`` of a canonical record.

    ``_FALLBACK`` when the record is not canonical or anything about it
    would be reported as an error: the general path then reads it.
    """
    parts = split_canonical_record(body)
    if parts is None:
        return _FALLBACK
    gold, gold_text, system, inner = parts
    if "[" in inner or "]" in inner or "{" in inner or "}" in inner:
        return _FALLBACK
    kinds = [identification_kind(item) for item in inner.split(", ")]
    if None in kinds or len(kinds) != (1 if system is None else len(system)):
        return _FALLBACK
    index = None if system is None else evaluated_raw_index(gold_text, system)
    heads = None if system is None else [head for head, _ in system]
    judged = judge_heads(gold, heads, kinds, index, absolute)  # type: ignore[arg-type]
    if judged is _FALLBACK:
        return _FALLBACK
    verdict, morph_seen = judged  # type: ignore[misc]
    if verdict is None:
        return None, morph_seen
    listed = NULL_LIST if system is None else "[" + ", ".join(map(format_raw_tag, system)) + "]"
    return f"{gold.opening}{gold_text}{gold.closing}{ARROW}{listed}:[{verdict}]", morph_seen


SingleTemplate = tuple[str | None, str, str, bool]
"""Text before the gold text, between the two texts, after the system text; any MORF."""


def single_template(
    gold_head: str, system_head: str | None, item: str, evaluated: bool, absolute: bool
) -> SingleTemplate | object:
    """How a record with these heads and item is written (``_FALLBACK``: not here).

    ``system_head`` None is a ``[null]`` record (its system text is then empty).
    """
    kind = identification_kind(item)
    if kind is None:
        return _FALLBACK
    gold = tag_head(gold_head)
    system = None if system_head is None else tag_head(system_head)
    index = 0 if evaluated else None
    judged = judge_heads(gold, None if system is None else (system,), (kind,), index, absolute)
    if judged is _FALLBACK:
        return _FALLBACK
    verdict, morph_seen = judged  # type: ignore[misc]
    if verdict is None:
        return None, "", "", morph_seen
    if system is None:
        return gold.opening, f"{gold.closing}{ARROW}{NULL_LIST}:[{verdict}]", "", morph_seen
    middle = f"{gold.closing}{ARROW}[{system.opening}"
    return gold.opening, middle, f"{system.closing}]:[{verdict}]", morph_seen


_TEMPLATES: dict[bool, dict[tuple[str, str | None, str, bool], SingleTemplate | object]] = {
    True: {},
    False: {},
}
"""``single_template`` per scenario (absolute?), kept from one call of ``score_raw_lines``
to the next: a file read a block at a time builds each template once."""


def score_raw_lines(
    lines: Iterable[RawLine],
    scenario: Scenario,
    path: str,
    tally: VizirTally,
) -> Iterator[list[str]]:
    """The ``.vizir`` text of raw Véus lines (see ``open_raw_lines``), in batches.

    A batch is ``[text, line end, text, line end, …]``: the lines
    ``score_lines`` gives, written by ``format_line`` with the ``:`` marker;
    errors are the general path's.
    """
    absolute = scenario is Scenario.ABSOLUTE
    templates = _TEMPLATES[absolute]
    single_match = SINGLE_RECORD.match
    out: list[str] = []
    for number, text, eol in lines:
        if len(out) >= 8192:
            yield out
            out = []
        if not text:  # a blank line is copied
            out.append(text)
            out.append(eol)
            continue
        if text[:1] == "<":
            single = single_match(text)
            if single is not None and not text.startswith(SPECIAL_LINES):
                gold_head, gold_text, system_head, system_text, item = single.group(1, 3, 4, 6, 7)
                if system_head is None:
                    system_text = ""
                    evaluated = False
                else:
                    atom = cached_first_atom(gold_text)
                    evaluated = atom is not None and (
                        gold_text == system_text or cached_first_atom(system_text) == atom
                    )
                key = (gold_head, system_head, item, evaluated)
                template = templates.get(key)
                if template is None:
                    if len(templates) >= _CACHE_LIMIT:
                        templates.clear()
                    template = templates[key] = single_template(*key, absolute)
                if template is not _FALLBACK:
                    before, middle, after, morph_seen = template  # type: ignore[misc]
                    tally.records += 1
                    if morph_seen:
                        tally.system_morph_seen = True
                    if before is not None:
                        tally.scored += 1
                        out.append(before + gold_text + middle + system_text + after)
                        out.append(eol)
                    continue
            result = score_raw_record(text, absolute)
            if result is not _FALLBACK:
                line, morph_seen = result  # type: ignore[misc]
                tally.records += 1
                if morph_seen:
                    tally.system_morph_seen = True
                if line is not None:
                    tally.scored += 1
                    out.append(line)
                    out.append(eol)
                continue
        item = score_line(parse_line(text, path, number, eol), scenario, path, tally)
        if item is not None:
            out.append(format_line(item, MARKER_FIRST_HAREM))
            out.append(item.eol)
    if out:
        yield out


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

# Extensions of files the chain derives from a Véus result (and of other
# outputs of the HAREM tools): a folder run never takes them as input.
DERIVED_EXTENSIONS = frozenset(
    {
        "altida", "altmor", "vizir", "emir", "emir_relativo", "ida2id", "ida2mor", "json",
        "ida", "globalid", "alts", "altrel", "espurios", "stderr", "manifest", "tmp",
        "alinhado",
    }
)  # fmt: skip
