"""AvalIDa: judge the identification of every aligned system entity.

Reads an ``.alinhado`` file and writes it back with an evaluation list after
each record, exactly as the 2010 Java ``IndividualAlignmentEvaluator`` does
(we write the First HAREM marker ``:`` where the Java writes ``::``):

* ``[null]`` (a CD entity nobody found) → ``Em_Falta``;
* a spurious gold side (``CATEG="ESPURIO"``) → a single ``Espurio``;
* otherwise, per aligned system entity, comparing atoms
  (:func:`harem_pipeline.text.atoms.atoms`): ``Correcto`` when both have the
  same number of atoms and every CD atom occurs in the system entity; else
  a partial match with weight ``w`` (see :func:`partial_weight`), written
  ``…_por_Excesso(w; 1-w)`` when the system entity has at least as many
  atoms as the CD entity and ``…_por_Defeito(w; 1-w)`` otherwise.

Entities are judged and written as the Java reads them back
(:func:`~harem_pipeline.formats.alinhado.java_entity_text`): the system
entities' texts without ``[``/``]``, ``''`` as ``'`` on both sides.  The
``.alinhado`` keeps the texts as the run wrote them; from the ``.avalida``
on, every file of the chain has them so.

Every other line (headers, ``DOC``, ``EOD``, ``<ALT…>``, manual checks,
blank lines) is copied unchanged.  Records inside ALT blocks are evaluated
like any other: choosing an alternative is AltinaID's job.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    CORRECT_EVALUATION,
    EVAL_PARTIAL_DEFECT,
    EVAL_PARTIAL_EXCESS,
    MARKER_FIRST_HAREM,
    MISSING_EVALUATION,
    SPURIOUS_EVALUATION,
    Evaluation,
    Header,
    Line,
    Record,
    format_evaluation,
    reprint_record,
)
from harem_pipeline.text.atoms import atoms
from harem_pipeline.text.memo import keyed_cache


def intersection_size(gold: Sequence[str], system: Sequence[str]) -> int:
    """How many atoms the two entities share, counted as the Java does.

    The atoms of the *shorter* list (the system's when both are as long) are
    counted one by one, repeats included, when they occur anywhere in the
    longer one.  With no repeated atom this is the size of the set
    intersection; with repeats it can differ (``A A`` against ``A A B``
    gives 2, not 1), and the reference weights depend on it.
    """
    if len(gold) < len(system):
        shorter, longer = gold, set(system)
    else:
        shorter, longer = system, set(gold)
    return sum(1 for atom in shorter if atom in longer)


def partial_weight(gold: Sequence[str], system: Sequence[str]) -> float:
    """``w = 0.5 · |A∩B| / (|A| + |B| − |A∩B|)``: half the atom Jaccard overlap.

    Computed in the Java order (divide, then halve) so the printed digits are
    the reference's.  A partial match earns at most 0.5 by design: the
    First HAREM rule splits the credit between the correct and the wrong
    part of a boundary error.

    Two atom-less entities are ``Correcto`` and never reach this function;
    with at least one atom the denominator is positive.
    """
    shared = intersection_size(gold, system)
    return (shared / (len(gold) + len(system) - shared)) / 2


def is_correct(gold: Sequence[str], system: Sequence[str]) -> bool:
    """Same number of atoms and every CD atom present in the system entity."""
    return len(gold) == len(system) and set(gold) <= set(system)


_MISSING = (MISSING_EVALUATION,)
_SPURIOUS = (SPURIOUS_EVALUATION,)


def judge_atoms(gold_atoms: Sequence[str], system_atoms: Sequence[str]) -> Evaluation:
    """The identification verdict for a system entity aligned to a CD entity, given by
    their atoms."""
    if is_correct(gold_atoms, system_atoms):
        return CORRECT_EVALUATION
    kind = EVAL_PARTIAL_EXCESS if len(system_atoms) >= len(gold_atoms) else EVAL_PARTIAL_DEFECT
    return format_evaluation(kind, partial_weight(gold_atoms, system_atoms))


@keyed_cache()
def judge_texts(gold: str, system: str) -> Evaluation:
    """:func:`judge_atoms` of two entity texts: the decision on AvalIDa's key.

    The verdict depends on the two texts only, and in a collection the same
    pairs recur (the same names, the same dates), so it is worked out once
    per pair.
    """
    return judge_atoms(atoms(gold), atoms(system))


def evaluate_record(record: Record, path: str | None = None) -> Record:
    """``record`` with its identification evaluation (an existing one is replaced).

    An empty system list ``[]`` is neither ``[null]`` nor an alignment: the
    Java aborts on it, we report it.  The record's entities are read as
    the Java reads them (:func:`~harem_pipeline.formats.alinhado.reprint_record`).
    """
    record = reprint_record(record)
    system = record.system_texts
    if system is None:
        evaluation: tuple[Evaluation, ...] = _MISSING
    elif not system:
        raise InputError(
            path, "[null] or a non-empty list of system entities", "[]", line=record.line or None
        )
    elif record.is_spurious:
        evaluation = _SPURIOUS
    else:
        gold = record.gold_text
        evaluation = tuple(map(judge_texts, repeat(gold, len(system)), system))
    return record.evaluated(evaluation, MARKER_FIRST_HAREM)


def evaluate_lines(lines: Iterable[Line], path: str | None = None) -> Iterator[Line]:
    """Evaluate every record of an alignment file, lazily; other lines pass through
    (a ``#`` line only where :func:`check_header_place` allows it)."""
    opened_by_header = False
    for number, item in enumerate(lines, 1):
        if type(item) is Record:
            yield evaluate_record(item, path)
            continue
        if isinstance(item, Header):
            # The line's own number where it was read (a block of a file does not
            # start at line 1), else its place in ``lines``.
            number = item.line or number
            check_header_place(number, opened_by_header, "#" + item.text, path)
            opened_by_header = number == 1
        yield item


def check_header_place(line: int, opened_by_header: bool, body: str, path: str | None) -> None:
    """Refuse a ``#`` line that is not one of the two opening an ``.alinhado``.

    AlinhEM writes the run's and the collection's names on lines 1 and 2,
    and nothing else starts with ``#``: a ``#`` line further on is a file
    written twice into one (a header heard twice on a pipe, two files
    concatenated), which would be scored as one silently.
    """
    if line == 1 or (line == 2 and opened_by_header):
        return
    raise InputError(
        path,
        "the two # header lines (run, collection) on lines 1 and 2 only",
        f"another one: {body}",
        line=line,
    )
