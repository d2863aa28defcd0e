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

from harem_pipeline.formats import vizir as vizir_format
from harem_pipeline.formats.alinhado import (
    MARKER_FIRST_HAREM,
    AltBlockLines,
    AltClose,
    AltOpen,
    Line,
    RawLine,
    Record,
    alt_choice_header,
    format_line,
    group_alt_blocks,
    parse_line,
)
from harem_pipeline.formats.vizir import (
    Outcome,
    cut_record,
    record_text,
)
from harem_pipeline.stages.vizir import record_facts

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


def choose_lines(lines: Iterable[RawLine], path: str) -> Iterator[list[str]]:
    """The ``.altmor`` text of ``.vizir`` lines, in batches ``[text, line end, …]``.

    Each line is written by ``format_line`` (``:`` marker), so a record
    Vizir wrote (canonical, one morphological item) is passed on as read;
    an ALT block is replaced by its best alternative, its lines parsed as
    they are needed (so errors come in the file's order).
    """
    lines = iter(lines)
    out: list[str] = []
    for number, text, eol in lines:
        if len(out) >= 8192:
            yield out
            out = []
        if not text or _written_as_read(text):
            out.append(text)
            out.append(eol)
            continue
        item = parse_line(text, path, number, eol)
        if isinstance(item, AltOpen) and item.n is None:
            chosen: Iterable[Line] = _resolve_blocks(_alt_block(item, lines, path), path)
        elif isinstance(item, (AltOpen, AltClose)):
            chosen = _resolve_blocks([item], path)  # a marker out of place: the same error
        else:
            chosen = (item,)
        for line in chosen:
            out.append(format_line(line, MARKER_FIRST_HAREM))
            out.append(line.eol)
    if out:
        yield out


def _written_as_read(text: str) -> bool:
    """Whether ``format_line(parse_line(text), ":")`` is ``text``, with no error: a
    canonical record with one morphological item."""
    record = cut_record(text) if text[:1] == "<" else None
    if record is None:
        return False
    _, _, _, _, items = record  # one item: no ", " between items, and an item in parentheses
    return items is not None and items[:1] == "(" and items[-1:] == ")" and ", " not in items


def _alt_block(first: AltOpen, lines: Iterator[RawLine], path: str) -> Iterator[Line]:
    """``first`` (an ``<ALT>``) and the parsed lines after it, up to the ``</ALT>`` closing it.

    The block's end is found as ``group_alt_blocks`` finds it (``<ALTn>`` …
    ``</ALTn>`` inside, then ``</ALT>`` outside any alternative), so the
    whole block, and nothing after it, is resolved.
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


def alternative_tally(records: Iterable[Record], path: str | None = None) -> AltTally:
    """What an alternative's records add up to; Pontuação is :func:`morph_credit`'s."""
    correct = partial = cd = system = errors = count = 0
    for record in records:
        score, in_cd, in_system = record_facts(record_text(record), path, record.line)
        outcome = score.combined
        correct += outcome is Outcome.CORRECTO
        partial += outcome is Outcome.PARCIALMENTE_CORRECTO
        cd += in_cd
        system += in_system
        errors += outcome in _ERRORS
        count += 1
    return AltTally(
        vizir_format.morph_credit(Fraction(correct), Fraction(partial)), cd, system, errors, count
    )


def choose_alternative(tallies: Sequence[AltTally]) -> int:
    """Index of the winning alternative: highest F; then lowest error; more records; later one."""
    if not tallies:
        raise ValueError("an ALT block needs at least one alternative")
    return max(
        range(len(tallies)),
        key=lambda i: (tallies[i].f_measure, -tallies[i].error, tallies[i].records, i),
    )


def _resolve_blocks(lines: Iterable[Line], path: str | None) -> Iterator[Line]:
    """The parsed lines of an ALT block, each block replaced by its best alternative."""
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
