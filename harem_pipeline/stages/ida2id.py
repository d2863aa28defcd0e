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
    Record,
    evaluation_of,
    iter_lines,
)
from harem_pipeline.stages.tally import (
    Counts,
    DocumentTally,
    Tally,
    document_records,
    nonzero,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.memo import KeyedTable


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


RecordKey = tuple[bool, tuple[Evaluation, ...]]
"""What a record's contributions depend on: whether its gold side is spurious, its items."""


def record_key(record: Record, path: str | None) -> RecordKey:
    """The :data:`RecordKey` of an evaluated record, its evaluation checked against its
    entities (one item per aligned entity) on the way."""
    evaluation = evaluation_of(
        record,
        path,
        "an evaluated record GOLD ---> [SYS, ...]:[EVAL, ...] (run harem avalida first)",
    )
    texts = record.system_texts
    aligned = 1 if texts is None else len(texts)
    if len(evaluation) != aligned:
        raise InputError(
            path,
            f"{aligned} evaluation item(s), one per aligned entity",
            f"{len(evaluation)}",
            line=record.line or None,
        )
    return record.is_spurious, evaluation


def record_rows(key: RecordKey) -> tuple[tuple[float, ...], ...]:
    """The rows a record of this key adds (``Total na CD`` first, then one per item), in
    the order the Java adds them: the decision on Ida2ID's key (an unknown item's
    error unlocated)."""
    spurious, evaluation = key
    rows: list[tuple[float, ...]] = [] if spurious else [_IN_CD]
    for item in evaluation:
        row = item_row(item)
        if row is None:
            raise InputError(
                None,
                "an identification evaluation (Correcto, Parcialmente_Correcto_por_…(w; 1-w), "
                "Em_Falta, Espurio)",
                item.text,
            )
        rows.append(row)
    return tuple(rows)


def record_numbers(key: RecordKey) -> tuple[tuple[int, float], ...]:
    """:func:`record_rows` as the ``(index, value)`` of their non-zero numbers, row after
    row: what :meth:`DocumentTally.add_numbers` adds, in the same order."""
    return tuple([number for row in record_rows(key) for number in nonzero(row)])


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
    """Count a whole evaluated file in one pass: totals and per-document counts.

    Each record's numbers are :func:`record_numbers` of its key, worked out once per key.
    """
    tally = DocumentTally(IdentificationCounts)
    numbers: KeyedTable[RecordKey, tuple[tuple[int, float], ...]] = KeyedTable(record_numbers)
    add = tally.add_numbers
    for record in document_records(lines, tally):
        key = record_key(record, path)
        try:
            found = numbers[key]
        except InputError as error:  # located at the record's line
            raise InputError(path, error.expected, error.found, line=record.line or None) from None
        add(found)
    return tally.freeze()


def read_tally(path: PathLike) -> tuple[str, IdentificationTally]:
    """Stream an evaluated file and count it; returns its encoding with the tally."""
    encoding, lines = iter_lines(path)
    return encoding, tally_identification(lines, str(path))
