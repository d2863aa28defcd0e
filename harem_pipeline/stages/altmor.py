"""AltinaMor: judge a system against the CD alternative that suits it best.

The rules are docs/spec/vizir-altinamor-ida2mor.md §4.

The CD may segment a passage in several ways (``<ALT>`` with ``<ALT1>``,
``<ALT2>``…).  For each block, every alternative is scored on the Combinada
field with AltinaID's add-one smoothing and the best one replaces the block,
preceded by ``# ALT escolhida: k de n``.  Only one block is held in memory
at a time, so a file streams through in one pass.

Arithmetic is exact (``Fraction``): ties are real ties, not float accidents.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from harem_pipeline.formats.alinhado import (
    EVAL_MORPHOLOGICAL,
    MARKER_FIRST_HAREM,
    AltBlockLines,
    AltClose,
    AltOpen,
    Line,
    Record,
    alt_choice_header,
    format_line,
    group_alt_blocks,
    parse_line,
)
from harem_pipeline.formats.vizir import (
    Outcome,
    RawLine,
    cached_morph_score,
    is_canonical_scored,
    record_morph_score,
)
from harem_pipeline.stages.vizir import alignment_from_scored_record, counts_for_system

_ERRORS = frozenset(
    {
        Outcome.INCORRECTO,
        Outcome.EM_FALTA,
        Outcome.ESPURIO,
        Outcome.SOBRE_ESPECIFICADO,
        Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO,
    }
)


@dataclass(frozen=True, slots=True)
class AltTally:
    """What AltinaMor needs of one alternative's records (Combinada field)."""

    score: Fraction = Fraction(0)  # S_k
    cd: int = 0  # G_k: records counted in Total na CD
    system: int = 0  # Y_k: records counted in Total classificadas pelo sistema
    errors: int = 0  # Incorrecto + Em Falta + Espúrio + (parcialmente) sobre especificado
    records: int = 0

    def __add__(self, other: AltTally) -> AltTally:
        return AltTally(
            self.score + other.score,
            self.cd + other.cd,
            self.system + other.system,
            self.errors + other.errors,
            self.records + other.records,
        )

    @property
    def precision(self) -> Fraction:
        return (1 + self.score) / (1 + self.system)

    @property
    def recall(self) -> Fraction:
        return (1 + self.score) / (1 + self.cd)

    @property
    def f_measure(self) -> Fraction:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r)  # p, r > 0 thanks to the smoothing

    @property
    def error(self) -> Fraction:
        return Fraction(self.errors, 1 + self.records)


def choose_raw_lines(lines: Iterable[RawLine], path: str) -> Iterator[list[str]]:
    """The ``.altmor`` text of raw ``.vizir`` lines, in batches ``[text, line end, …]``.

    The text ``choose_lines`` + ``format_line`` (``:`` marker) give: a record
    outside any ALT block that Vizir wrote (``is_canonical_scored``) is
    passed on as read; every other line is parsed, and an ALT block goes
    through ``choose_lines`` as before, its lines parsed only as
    ``choose_lines`` asks for them (so errors come in the same order).
    """
    lines = iter(lines)
    out: list[str] = []
    for number, text, eol in lines:
        if len(out) >= 8192:
            yield out
            out = []
        if not text or is_canonical_scored(text):  # a blank line or a record Vizir wrote
            out.append(text)
            out.append(eol)
            continue
        item = parse_line(text, path, number, eol)
        if isinstance(item, AltOpen) and item.n is None:
            chosen: Iterable[Line] = choose_lines(_alt_block(item, lines, path), path)
        elif isinstance(item, (AltOpen, AltClose)):
            chosen = choose_lines([item], path)  # a marker out of place: the same error
        else:
            chosen = (item,)
        for line in chosen:
            out.append(format_line(line, MARKER_FIRST_HAREM))
            out.append(line.eol)
    if out:
        yield out


def _alt_block(first: AltOpen, lines: Iterator[RawLine], path: str) -> Iterator[Line]:
    """``first`` (an ``<ALT>``) and the parsed lines after it, up to the ``</ALT>`` closing it.

    The block's end is found as ``group_alt_blocks`` finds it (``<ALTn>`` …
    ``</ALTn>`` inside, then ``</ALT>`` outside any alternative), so the
    whole block, and nothing after it, reaches ``choose_lines``.
    """
    yield first
    alternative: int | None = None
    for number, text, eol in lines:
        item = parse_line(text, path, number, eol)
        yield item
        if isinstance(item, AltOpen) and item.n is not None and alternative is None:
            alternative = item.n
        elif isinstance(item, AltClose):
            if item.n is not None and item.n == alternative:
                alternative = None
            elif item.n is None and alternative is None:
                return


def tally_record(record: Record, path: str | None = None) -> AltTally:
    """One ``.vizir`` record's contribution to its alternative."""
    outcome, in_cd, in_system = record_facts(record, path)
    return AltTally(outcome.score, int(in_cd), int(in_system), int(outcome in _ERRORS), 1)


def record_facts(record: Record, path: str | None = None) -> tuple[Outcome, bool, bool]:
    """A ``.vizir`` record's Combinada outcome and whether it counts in the two totals.

    The totals are Ida2Mor's (``count_record``): *Total na CD* and *Total
    classificadas pelo sistema*.  A verdict already read is not read again.
    """
    evaluation = record.evaluation or ()
    score = None
    if len(evaluation) == 1 and evaluation[0].kind == EVAL_MORPHOLOGICAL:
        score = cached_morph_score(evaluation[0].text)
    if score is None:
        score = record_morph_score(record, path)
    alignment = alignment_from_scored_record(record, path)
    return score.combined, not alignment.spurious, counts_for_system(alignment)


def alternative_tally(records: Iterable[Record], path: str | None = None) -> AltTally:
    """The sum of ``tally_record`` over an alternative's records, in integers (halves)."""
    halves = cd = system = errors = count = 0
    for record in records:
        outcome, in_cd, in_system = record_facts(record, path)
        halves += _HALVES.get(outcome, 0)
        cd += in_cd
        system += in_system
        errors += outcome in _ERRORS
        count += 1
    return AltTally(Fraction(halves, 2), cd, system, errors, count)


_HALVES = {Outcome.CORRECTO: 2, Outcome.PARCIALMENTE_CORRECTO: 1}
"""Twice each outcome's score (``Outcome.score``): sums of halves stay integers."""


def choose_alternative(tallies: Sequence[AltTally]) -> int:
    """Index of the winning alternative: highest F; then lowest error; more records; later one."""
    if not tallies:
        raise ValueError("an ALT block needs at least one alternative")
    return max(
        range(len(tallies)),
        key=lambda i: (tallies[i].f_measure, -tallies[i].error, tallies[i].records, i),
    )


def choose_lines(lines: Iterable[Line], path: str | None = None) -> Iterator[Line]:
    """The ``.altmor`` stream of a ``.vizir`` stream: each ALT block → its best alternative."""
    for item in group_alt_blocks(lines, path):
        if isinstance(item, AltBlockLines):
            yield from resolve_block(item, path)
        else:
            yield item


def resolve_block(block: AltBlockLines, path: str | None) -> Iterator[Line]:
    """``# ALT escolhida: k de n`` then the chosen alternative's records."""
    if not block.labels:
        return
    alternatives = [[x for x in lines if isinstance(x, Record)] for lines in block.alternatives]
    tallies = [alternative_tally(records, path) for records in alternatives]
    chosen = choose_alternative(tallies)
    yield alt_choice_header(block.labels[chosen], len(block.labels), block.eol)
    yield from alternatives[chosen]
