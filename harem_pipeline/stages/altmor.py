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
    AltBlockLines,
    Line,
    Record,
    alt_choice_header,
    group_alt_blocks,
)
from harem_pipeline.formats.vizir import Outcome, record_morph_score
from harem_pipeline.stages.ida2mor import count_record
from harem_pipeline.stages.vizir import alignment_from_scored_record

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


def tally_record(record: Record, path: str | None = None) -> AltTally:
    """One ``.vizir`` record's contribution to its alternative."""
    score = record_morph_score(record, path)
    combined = count_record(alignment_from_scored_record(record, path), score).combinada
    outcome = score.combined
    return AltTally(
        outcome.score, combined.total_cd, combined.total_system, int(outcome in _ERRORS), 1
    )


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
    tallies = []
    for records in alternatives:
        total = AltTally()
        for record in records:
            total = total + tally_record(record, path)
        tallies.append(total)
    chosen = choose_alternative(tallies)
    yield alt_choice_header(block.labels[chosen], len(block.labels), block.eol)
    yield from alternatives[chosen]
