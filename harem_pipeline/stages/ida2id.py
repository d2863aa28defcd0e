"""Ida2ID: the counts of the First HAREM identification measures of an evaluated file.

Counts first: :func:`tally_identification` reduces an ``.avalida`` /
``.altida`` file to :class:`IdentificationCounts` (sufficient statistics,
also kept per document so documents can be resampled); the measures are
:mod:`harem_pipeline.measures.identification`'s, the report
:mod:`harem_pipeline.reports.ida2id`'s.

The counting follows the 2010 Java ``GlobalAlignmentEvaluator`` line by line,
so that run on an ``.avalida`` file the figures equal the reference
``.globalid`` to the last digit:

* **Total na CD**: records whose gold side is not spurious (records inside
  ALT blocks included: the Java does no ALT selection here, every
  alternative counts; select first with AltinaID);
* per evaluation item: ``Em_Falta`` → missing; anything else is one
  identified system entity, and then ``Correcto`` → correct, ``Espurio`` →
  spurious, a partial → one partial occurrence whose ``w`` and ``1-w`` are
  summed (as printed, in file order: the sums are the reference's to the
  last bit only in that order).

On ``Total identificadas``: the Java calls ``IdentificationDuplicateFinder``
meaning to count once a system entity partially aligned to several
consecutive CD entities, but it compares entities with JDOM's identity
``equals``, so no two records ever match and every evaluation item is
counted.  All reference files show it (exemplo1: 140 + 115 + 11 = 266;
gabriel: 2822 + 1114 + 135 = 4071, although 195 consecutive records share a
partially aligned system entity).  We reproduce the reference.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_CORRECT,
    EVAL_MISSING,
    EVAL_SPURIOUS,
    PARTIAL_KINDS,
    Evaluation,
    Line,
    LineChunk,
    Record,
    iter_line_chunks,
    parse_line,
    raw_is_spurious,
    scan_record,
)
from harem_pipeline.stages.tally import (
    Counts,
    DocumentBoundaries,
    DocumentTally,
    Tally,
    document_records,
)


@dataclass(frozen=True, slots=True)
class IdentificationCounts(Counts):
    """Sufficient statistics of the identification measures.

    Adding two counts (``a + b``) gives the counts of both inputs; integer
    fields add exactly, the two sums up to floating-point rounding.
    """

    total_cd: int = 0
    identified: int = 0
    correct: int = 0
    partial_occurrences: int = 0
    partial_correct_sum: float = 0.0
    partial_incorrect_sum: float = 0.0
    spurious: int = 0
    missing: int = 0


IdentificationTally = Tally[IdentificationCounts]

_MISSING = (0, 0, 0, 0, 0.0, 0.0, 0, 1)
_CORRECT = (0, 1, 1, 0, 0.0, 0.0, 0, 0)
_SPURIOUS = (0, 1, 0, 0, 0.0, 0.0, 1, 0)
_IN_CD = (1, 0, 0, 0, 0.0, 0.0, 0, 0)
"""Rows (in ``IdentificationCounts`` field order) of the verdicts that add constants."""


def record_rows(record: Record, path: str | None) -> list[tuple[float, ...]]:
    """One evaluated record's contributions, in the order the Java adds them."""
    line = record.line or None
    if record.evaluation is None:
        raise InputError(
            path,
            "an evaluated record GOLD ---> [SYS, ...]:[EVAL, ...] (run harem avalida first)",
            "a record without evaluation",
            line=line,
        )
    aligned = 1 if record.system is None else len(record.system)
    if len(record.evaluation) != aligned:
        raise InputError(
            path,
            f"{aligned} evaluation item(s), one per aligned entity",
            f"{len(record.evaluation)}",
            line=line,
        )
    rows = [] if record.gold.is_spurious else [_IN_CD]
    for item in record.evaluation:
        row = item_row(item)
        if row is None:
            raise InputError(
                path,
                "an identification evaluation (Correcto, Parcialmente_Correcto_por_…(w; 1-w), "
                "Em_Falta, Espurio)",
                item.text,
                line=line,
            )
        rows.append(row)
    return rows


def item_row(item: Evaluation) -> tuple[float, ...] | None:
    """One evaluation item's contribution; None when it is no identification verdict."""
    if item.kind == EVAL_MISSING:
        return _MISSING
    if item.kind == EVAL_CORRECT:
        return _CORRECT
    if item.kind == EVAL_SPURIOUS:
        return _SPURIOUS
    if item.kind in PARTIAL_KINDS and item.weight is not None:
        return (0, 1, 0, 1, item.weight, item.complement or 0.0, 0, 0)
    return None


def tally_identification(lines: Iterable[Line], path: str | None = None) -> IdentificationTally:
    """Count a whole evaluated file in one pass: totals and per-document counts."""
    tally = DocumentTally(IdentificationCounts)
    for record in document_records(lines, tally):
        for row in record_rows(record, path):
            tally.add(row)
    return tally.freeze()


def tally_identification_chunks(
    chunks: Iterable[LineChunk], path: str | None = None
) -> IdentificationTally:
    """:func:`tally_identification` on raw lines: the same sums, added in the same order.

    A record :func:`~harem_pipeline.formats.alinhado.scan_record` reads is
    counted from its scanned verdicts; any other line is parsed and counted
    (or reported) by the general code.
    """
    tally = DocumentTally(IdentificationCounts)
    boundaries = DocumentBoundaries(tally)
    total = tally.total
    adds = _ITEM_ADDS
    for chunk in chunks:
        for index, body in enumerate(chunk.bodies):
            if not body:
                continue
            scanned = scan_record(body) if body[0] == "<" else None
            if scanned is not None and scanned[4] is not None:
                boundaries.record()
                current = tally.current
                if not raw_is_spurious(scanned[0]):
                    total[0] += 1
                    current[0] += 1
                for item in scanned[4]:
                    pairs = adds.get(item.text) or _item_adds(item)
                    for i, value in pairs:
                        total[i] += value
                        current[i] += value
                continue
            line = parse_line(body, path, chunk.first + index, chunk.eols[index])
            if isinstance(line, Record):
                boundaries.record()
                for row in record_rows(line, path):
                    tally.add(row)
            else:
                boundaries.boundary(line)
    return tally.freeze()


_ITEM_ADDS: dict[str, tuple[tuple[int, float], ...]] = {}
"""Per identification item text, the non-zero (index, value) pairs of its row."""


def _item_adds(item: Evaluation) -> tuple[tuple[int, float], ...]:
    row = item_row(item)
    assert row is not None  # scan_record gives identification items only
    pairs = tuple((i, value) for i, value in enumerate(row) if value)
    if len(_ITEM_ADDS) < 4096:
        _ITEM_ADDS[item.text] = pairs
    return pairs


def count_identification(lines: Iterable[Line], path: str | None = None) -> IdentificationCounts:
    """The whole-file identification counts (``Total na CD`` … ``Em Falta``)."""
    return tally_identification(lines, path).total


def sum_counts(counts: Iterable[IdentificationCounts]) -> IdentificationCounts:
    """The counts of several parts together (e.g. a bootstrap sample of documents)."""
    return sum(counts, IdentificationCounts())


def read_tally(path: str | os.PathLike[str]) -> tuple[str, IdentificationTally]:
    """Stream an evaluated file and count it; returns its encoding with the tally."""
    encoding, chunks = iter_line_chunks(path)
    return encoding, tally_identification_chunks(chunks, str(path))
