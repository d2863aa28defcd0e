"""AltinaID: keep, for every ``<ALT>`` block, the alternative that suits the system best.

The golden collection may offer alternative segmentations of a passage
(``<ALT>`` with ``<ALT1>…</ALT1>``, ``<ALT2>…``).  AvalIDa evaluates the
system against all of them; AltinaID keeps one per block, chosen as the
2010 Java ``IdentificationAltAlignmentSelector`` ranks them
(``IdentificationEvaluatedALTAlignment.compareTo``):

* over the alternative's records, with ``C`` Correcto items, ``Σw`` the
  partial weights, ``Y`` the identified system entities (every evaluation
  item but ``Em_Falta``) and ``G`` the records whose gold side is not
  spurious: ``P = (1 + C + Σw)/(1 + Y)``, ``R = (1 + C + Σw)/(1 + G)``,
  ``F = 2PR/(P + R)`` (add-one smoothing, so an empty alternative is
  comparable); the highest F wins;
* ties: the lowest ``(Em_Falta + Espurio + Σ(1−w))/(1 + items)``
  (every evaluation item counts in ``items``); then more records; then the
  later alternative (the Java sorts stably and takes the last).

``Y`` counts evaluation items, not distinct system entities: the Java's
duplicate finder never matches (see :mod:`harem_pipeline.stages.ida2id`),
so we count as it does.

Output: the input with each block replaced by the lines of its chosen
alternative, preceded by the comment line ``# ALT escolhida: k de n``
(as AltinaMor writes it).  Lines between ``</ALTn>`` and the next
``<ALTn+1>`` or ``</ALT>`` belong to no alternative and are dropped, as the
Java drops them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_CORRECT,
    EVAL_MISSING,
    EVAL_SPURIOUS,
    MARKER_FIRST_HAREM,
    PARTIAL_KINDS,
    AltBlockLines,
    AltClose,
    AltOpen,
    Evaluation,
    Line,
    LineChunk,
    NumberedLine,
    Record,
    alt_choice_header,
    alt_marker,
    format_line,
    group_alt_blocks,
    is_verbatim,
    parse_line,
    raw_is_spurious,
    record_marker,
    scan_record,
)


@dataclass(frozen=True, slots=True)
class AlternativeScore:
    """The smoothed sums one alternative is ranked by, accumulated in file order.

    ``credit`` starts at 1 and ``error`` at 0, ``identified``, ``gold`` and
    ``items`` count without the smoothing one (added in the properties).
    """

    credit: float
    identified: int
    gold: int
    error: float
    items: int
    records: int

    @property
    def precision(self) -> float:
        """``(1 + C + Σw)/(1 + Y)``."""
        return self.credit / (1 + self.identified)

    @property
    def recall(self) -> float:
        """``(1 + C + Σw)/(1 + G)``."""
        return self.credit / (1 + self.gold)

    @property
    def f_measure(self) -> float:
        """Harmonic mean of the smoothed P and R (both positive, so always defined)."""
        precision, recall = self.precision, self.recall
        return (2 * precision * recall) / (precision + recall)

    @property
    def combined_error(self) -> float:
        """``(Em_Falta + Espurio + Σ(1−w))/(1 + items)``."""
        return self.error / (1 + self.items)

    def rank_key(self) -> tuple[float, float, int]:
        """Larger is better: F, then lower error, then more records."""
        return (self.f_measure, -self.combined_error, self.records)


def score_alternative(records: Iterable[Record], path: str | None = None) -> AlternativeScore:
    """Sum one alternative's evaluated records into its :class:`AlternativeScore`."""
    return score_evaluations(_evaluated(records, path))


def _evaluated(
    records: Iterable[Record], path: str | None
) -> Iterator[tuple[bool, tuple[Evaluation, ...]]]:
    """``(gold side spurious, evaluation items)`` of each record; one without them is an error."""
    for record in records:
        if record.evaluation is None:
            raise InputError(
                path,
                "an evaluated record (run harem avalida first)",
                "a record without evaluation",
                line=record.line or None,
            )
        yield record.gold.is_spurious, record.evaluation


def score_evaluations(
    records: Iterable[tuple[bool, Sequence[Evaluation]]],
) -> AlternativeScore:
    """The :class:`AlternativeScore` of records given as ``(gold side spurious, items)``.

    The one place the sums are made, in file order (so the floating-point
    sums, and the ties they decide, are the same on both paths).
    """
    credit, error = 1.0, 0.0
    identified = gold = items = count = 0
    for spurious, evaluation in records:
        count += 1
        if not spurious:
            gold += 1
        for item in evaluation:
            items += 1
            if item.kind in (EVAL_MISSING, EVAL_SPURIOUS):
                error += 1
            elif item.kind in PARTIAL_KINDS:
                error += item.complement or 0.0
            if item.kind == EVAL_MISSING:
                continue
            identified += 1
            if item.kind == EVAL_CORRECT:
                credit += 1
            elif item.kind in PARTIAL_KINDS:
                credit += item.weight or 0.0
    return AlternativeScore(credit, identified, gold, error, items, count)


def choose_alternative(scores: Sequence[AlternativeScore]) -> int:
    """Index of the best alternative; on a full tie the later one."""
    best = 0
    for index, score in enumerate(scores):
        if score.rank_key() >= scores[best].rank_key():
            best = index
    return best


def select_alternatives(lines: Iterable[Line], path: str | None = None) -> Iterator[Line]:
    """The lines with every ``<ALT>`` block replaced by its chosen alternative, lazily."""
    for item in group_alt_blocks(lines, path):
        if not isinstance(item, AltBlockLines):
            yield item
        elif item.alternatives:
            scores = [
                score_alternative((x for x in lines if isinstance(x, Record)), path)
                for lines in item.alternatives
            ]
            best = choose_alternative(scores)
            yield alt_choice_header(best + 1, len(scores))
            yield from item.alternatives[best]


def select_alternatives_chunks(
    chunks: Iterable[LineChunk], path: str | None = None
) -> Iterator[str]:
    """:func:`select_alternatives` on raw lines, written with the ``:`` marker: text, lazily.

    Outside ALT blocks a record written as
    :func:`~harem_pipeline.formats.alinhado.format_line` writes it is copied
    (its marker made ``:``), and so are blank, ``#``, ``DOC`` and ``EOD``
    lines, joined into one text per run of such lines.  An ``<ALT>`` block
    is held as raw lines up to its ``</ALT>`` and, when every line of it is
    one :func:`chosen_block_text` reads, written from them; any other block,
    stray ``<ALTn>`` line or unusual line is parsed and goes through
    :func:`select_alternatives` itself, so the choice, the bytes and the
    errors are its own.
    """
    for item in select_alternatives(_raw_lines_as_text(chunks, path), path):
        if type(item) is str:
            yield item
        else:
            yield format_line(item, MARKER_FIRST_HAREM) + item.eol


_BLOCK_OPEN = format_line(AltOpen(None))
_BLOCK_CLOSE = format_line(AltClose(None))


def _raw_lines_as_text(chunks: Iterable[LineChunk], path: str | None) -> Iterator[Line | str]:
    """The lines, as their output text where no parsing is needed, else parsed."""
    block: list[NumberedLine] | None = None
    for chunk in chunks:
        out: list[str] = []
        first, eols = chunk.first, chunk.eols
        for index, body in enumerate(chunk.bodies):
            eol = eols[index]
            if block is not None:
                block.append((first + index, body, eol))
                if body == _BLOCK_CLOSE:
                    text = chosen_block_text(block)
                    if text is None:
                        if out:
                            yield "".join(out)
                            out = []
                        yield from _parsed(block, path)
                    else:
                        out.append(text)
                    block = None
                continue
            if body[:1] == "<":
                if body == _BLOCK_OPEN:
                    block = [(first + index, body, eol)]
                    continue
                found = record_marker(body)
                if found is not None:
                    if found[1] == "::":
                        end = found[0]
                        out.append(f"{body[:end]}:{body[end + 2 :]}{eol}")
                    else:
                        out.append(body + eol)
                    continue
            elif is_verbatim(body):
                out.append(body + eol)
                continue
            if out:
                yield "".join(out)
                out = []
            yield parse_line(body, path, first + index, eol)
        if out:
            yield "".join(out)
    if block is not None:  # no </ALT>: the general path reports it
        yield from _parsed(block, path)


def _parsed(lines: Iterable[NumberedLine], path: str | None) -> Iterator[Line]:
    for number, body, eol in lines:
        yield parse_line(body, path, number, eol)


def chosen_block_text(block: Sequence[NumberedLine]) -> str | None:
    """The output of a raw ``<ALT>`` … ``</ALT>`` block (its first and last lines), or None.

    Read when every line between the markers is an ``<ALTn>``/``</ALTn>``
    pair's line, a blank or ``#`` line, or, inside an alternative, a record
    :func:`~harem_pipeline.formats.alinhado.scan_record` reads with its
    evaluation: the alternatives are scored by :func:`score_evaluations` and
    the chosen one is written as :func:`select_alternatives_chunks` writes
    it.  Anything else — a record between alternatives or without
    evaluation, a document boundary, badly nested markers, an unusual
    line — gives None: the block is then the general path's, error included.
    """
    texts: list[list[str]] = []
    scored: list[list[tuple[bool, tuple[Evaluation, ...]]]] = []
    lines: list[str] = []
    records: list[tuple[bool, tuple[Evaluation, ...]]] = []
    inside: int | None = None
    for index in range(1, len(block) - 1):
        _, body, eol = block[index]
        if not body or body[0] == "#":
            if inside is not None:
                lines.append(body + eol)
            continue
        if body[0] != "<":
            return None
        if inside is not None:
            scanned = scan_record(body)
            if scanned is not None:
                marker = scanned[3]
                if not marker:
                    return None
                if marker == "::":
                    end = scanned[2]
                    lines.append(f"{body[:end]}:{body[end + 2 :]}{eol}")
                else:
                    lines.append(body + eol)
                records.append((raw_is_spurious(scanned[0]), scanned[4]))  # type: ignore[arg-type]
                continue
        marker = alt_marker(body)
        if marker is None or marker[1] is None:
            return None
        closing, n = marker
        if inside is None and not closing:
            inside = n
            lines, records = [], []
            texts.append(lines)
            scored.append(records)
        elif closing and n == inside:
            inside = None
        else:
            return None
    if inside is not None:
        return None
    if not texts:
        return ""
    best = choose_alternative([score_evaluations(records) for records in scored])
    header = alt_choice_header(best + 1, len(texts))
    return format_line(header) + header.eol + "".join(texts[best])
