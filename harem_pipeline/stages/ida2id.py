"""Ida2ID: the First HAREM identification measures of an evaluated alignment file.

Counts first: :func:`count_identification` reduces an ``.avalida`` /
``.altida`` file to :class:`IdentificationCounts` (sufficient statistics,
also kept per document so documents can be resampled), and
:func:`measures_from_counts` turns counts into :class:`IdentificationMeasures`.

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
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_CORRECT,
    EVAL_MISSING,
    EVAL_SPURIOUS,
    PARTIAL_KINDS,
    DocEnd,
    DocStart,
    DocumentLine,
    Line,
    Record,
    iter_lines,
)
from harem_pipeline.measures.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    harmonic_array,
    interval_table,
    ratio_array,
)
from harem_pipeline.reports.ida2id import (
    JSON_KEYS,
    format_ida2id_json,
    format_ida2id_text,
    report_values,
)
from harem_pipeline.stages.span_measures import MeasuresReport
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.text.textio import derived_path

NO_DOCUMENT = ""
"""DOCID under which records found outside any ``DOC``/``EOD`` pair are counted."""


@dataclass(frozen=True, slots=True)
class IdentificationCounts:
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

    def __add__(self, other: IdentificationCounts) -> IdentificationCounts:
        if not isinstance(other, IdentificationCounts):
            return NotImplemented
        return IdentificationCounts(
            *(getattr(self, f.name) + getattr(other, f.name) for f in fields(self))
        )


@dataclass(frozen=True, slots=True)
class DocumentCounts:
    """The counts of one ``DOC … EOD`` block (a DOCID may occur in several blocks)."""

    docid: str
    counts: IdentificationCounts


@dataclass(frozen=True, slots=True)
class IdentificationTally:
    """Whole-file counts (accumulated in file order, as the Java) and the per-document ones."""

    total: IdentificationCounts
    documents: tuple[DocumentCounts, ...]


@dataclass(frozen=True, slots=True)
class IdentificationMeasures:
    """The six First HAREM identification measures; None where a denominator is zero.

    ``precision`` lies in [0, 1] (an identified entity earns at most 1).
    ``recall`` does not have to: a CD entity may earn partial credit from
    several system entities, and an ``.avalida`` read without ALT selection
    counts the system entities of every alternative; the reference
    exemplo0 prints Abrangência 1.1916666666666667.
    """

    precision: float | None
    recall: float | None
    f_measure: float | None
    over_generation: float | None
    under_generation: float | None
    combined_error: float | None


class _Accumulator:
    """Mutable running totals; the public results are the frozen counts."""

    __slots__ = tuple(f.name for f in fields(IdentificationCounts))

    def __init__(self) -> None:
        for f in fields(IdentificationCounts):
            setattr(self, f.name, f.default)

    def freeze(self) -> IdentificationCounts:
        return IdentificationCounts(*(getattr(self, name) for name in self.__slots__))


def _add_record(acc: _Accumulator, record: Record, path: str | None) -> None:
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
    if not record.gold.is_spurious:
        acc.total_cd += 1
    for item in record.evaluation:
        if item.kind == EVAL_MISSING:
            acc.missing += 1
            continue
        acc.identified += 1
        if item.kind == EVAL_CORRECT:
            acc.correct += 1
        elif item.kind == EVAL_SPURIOUS:
            acc.spurious += 1
        elif item.kind in PARTIAL_KINDS and item.weight is not None:
            acc.partial_correct_sum += item.weight
            acc.partial_incorrect_sum += item.complement or 0.0
            acc.partial_occurrences += 1
        else:
            raise InputError(
                path,
                "an identification evaluation (Correcto, Parcialmente_Correcto_por_…(w; 1-w), "
                "Em_Falta, Espurio)",
                item.text,
                line=line,
            )


def tally_identification(lines: Iterable[Line], path: str | None = None) -> IdentificationTally:
    """Count a whole evaluated file in one pass: totals and per-document counts."""
    total = _Accumulator()
    documents: list[DocumentCounts] = []
    docid: str | None = None
    current = _Accumulator()

    def close() -> None:
        nonlocal docid, current
        if docid is not None:
            documents.append(DocumentCounts(docid, current.freeze()))
        docid, current = None, _Accumulator()

    records = 0
    for item in lines:
        if isinstance(item, DocumentLine) and docid is not None and records == 0:
            docid = item.docid  # a First HAREM document line right after its DOC
        elif isinstance(item, (DocStart, DocumentLine)):
            close()
            docid, records = item.docid, 0
        elif isinstance(item, DocEnd):
            close()
        elif isinstance(item, Record):
            if docid is None:
                docid, records = NO_DOCUMENT, 0
            records += 1
            _add_record(total, item, path)
            _add_record(current, item, path)
    close()
    return IdentificationTally(total.freeze(), tuple(documents))


def count_identification(lines: Iterable[Line], path: str | None = None) -> IdentificationCounts:
    """The whole-file identification counts (``Total na CD`` … ``Em Falta``)."""
    return tally_identification(lines, path).total


def sum_counts(counts: Iterable[IdentificationCounts]) -> IdentificationCounts:
    """The counts of several parts together (e.g. a bootstrap sample of documents)."""
    result = IdentificationCounts()
    for item in counts:
        result = result + item
    return result


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def measures_from_counts(counts: IdentificationCounts) -> IdentificationMeasures:
    """Precisão, Abrangência, Medida F, Sobre-geração, Sub-geração, Erro Combinado.

    Each is computed with the Java's operations in the Java's order so that
    the digits agree; a zero denominator gives None (undefined), never 0.
    """
    credit = counts.correct + counts.partial_correct_sum
    precision = _ratio(credit, counts.identified)
    recall = _ratio(credit, counts.total_cd)
    f_measure = None
    if precision is not None and recall is not None:
        f_measure = _ratio(2 * precision * recall, precision + recall)
    error = counts.partial_incorrect_sum + counts.missing + counts.spurious
    judged = counts.partial_occurrences + counts.correct + counts.spurious + counts.missing
    return IdentificationMeasures(
        precision=precision,
        recall=recall,
        f_measure=f_measure,
        over_generation=_ratio(counts.spurious, counts.identified),
        under_generation=_ratio(counts.missing, counts.total_cd),
        combined_error=_ratio(error, judged),
    )


def read_tally(path: str | os.PathLike[str]) -> tuple[str, IdentificationTally]:
    """Stream an evaluated file and count it; returns its encoding with the tally."""
    encoding, lines = iter_lines(path)
    return encoding, tally_identification(lines, str(path))


def default_output(path: str | os.PathLike[str]) -> Path:
    """``IN.ida2id`` (``.gz`` dropped first)."""
    return derived_path(path, ".ida2id")


def subset_from_name(path: str | os.PathLike[str]) -> str:
    """The Véus subset a file name carries after ``.avalida.`` (``total`` when none).

    ``run.alinhado.avalida.pt.web.altida`` → ``pt.web``;
    ``run.alinhado.avalida`` → ``total``.
    """
    name = Path(path).name
    for ending in (".gz", ".altida"):
        name = name.removesuffix(ending)
    _, found, rest = name.partition(".avalida.")
    return rest if found and rest else "total"


def counts_as_mapping(counts: IdentificationCounts) -> dict[str, float]:
    """``counts`` as a plain mapping (field name → value), the bootstrap's currency."""
    return asdict(counts)


def measures_from_mapping(counts: Mapping[str, float]) -> dict[str, float | None]:
    """Every reported figure, keyed like the JSON report, from mapped counts.

    The shape :mod:`harem_pipeline.measures.bootstrap` resamples: per-document
    mappings are summed, then measured with this function.
    """
    names = (f.name for f in fields(IdentificationCounts))
    values = IdentificationCounts(**{name: counts.get(name, 0) for name in names})
    figures = report_values(values, measures_from_counts(values))
    return dict(zip(JSON_KEYS, figures, strict=True))


def document_mappings(tally: IdentificationTally) -> dict[str, dict[str, float]]:
    """Each document's counts by DOCID (blocks of one DOCID added up), zeros left out.

    What the report's JSON keeps under ``documents`` and what the bootstrap
    resamples: a document is the unit drawn.
    """
    merged: dict[str, IdentificationCounts] = {}
    for doc in tally.documents:
        earlier = merged.get(doc.docid)
        merged[doc.docid] = doc.counts if earlier is None else earlier + doc.counts
    return {
        docid: {key: value for key, value in counts_as_mapping(counts).items() if value}
        for docid, counts in merged.items()
    }


INTERVAL_KEYS = ("precisao", "abrangencia", "medida_f")
"""The measures given a 95 % interval (JSON keys)."""


LOWER_IS_BETTER = ("sobre_geracao", "sub_geracao", "erro_combinado")
"""The error rates: a system is better with less of them."""


def identification_measure_arrays(columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The six measures (JSON keys) over count columns, NaN where undefined.

    The formulas of :func:`measures_from_counts` (F undefined when P + R = 0,
    as the Java's NaN), computed for every resample at once.
    """
    c = columns
    credit = c["correct"] + c["partial_correct_sum"]
    precision = ratio_array(credit, c["identified"])
    recall = ratio_array(credit, c["total_cd"])
    error = c["partial_incorrect_sum"] + c["missing"] + c["spurious"]
    judged = c["partial_occurrences"] + c["correct"] + c["spurious"] + c["missing"]
    return {
        "precisao": precision,
        "abrangencia": recall,
        "medida_f": harmonic_array(precision, recall, np.nan),
        "sobre_geracao": ratio_array(c["spurious"], c["identified"]),
        "sub_geracao": ratio_array(c["missing"], c["total_cd"]),
        "erro_combinado": ratio_array(error, judged),
    }


def identification_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any] | None:
    """``{"precisao": [lo, hi], "abrangencia": …, "medida_f": …}`` from a document bootstrap.

    ``documents`` as :func:`document_mappings` gives them; None when
    ``resamples`` is 0; an interval is None when undefined in every resample.
    """
    table = interval_table(list(documents.values()), identification_measure_arrays, resamples, seed)
    return None if table is None else {key: table[key] for key in INTERVAL_KEYS}


@dataclass(frozen=True, slots=True)
class Ida2idOutputs:
    """What :func:`run_ida2id` wrote and computed."""

    text_path: Path
    json_path: Path
    tally: IdentificationTally
    measures: IdentificationMeasures


def run_ida2id(
    path: str | os.PathLike[str],
    signature: str,
    output: str | os.PathLike[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    spans: MeasuresReport | None = None,
) -> Ida2idOutputs:
    """Count ``path`` and write the text report (``output``, default ``IN.ida2id``) and
    ``output.json``; ``spans``, the span measures of the same documents, join both
    (see :mod:`harem_pipeline.reports.ida2id`).

    The text goes out in the input's encoding (see :mod:`harem_pipeline.reports.ida2id`),
    the JSON in UTF-8 with the 95 % intervals of a ``resamples``-draw document
    bootstrap (0: ``ci95`` null) and the per-document counts.  ``signature``
    is rendered, never computed, here.
    """
    target = Path(output) if output is not None else default_output(path)
    encoding, tally = read_tally(path)
    measures = measures_from_counts(tally.total)
    text = format_ida2id_text(tally.total, measures, signature, spans)
    json_path = target.with_name(target.name + ".json")
    write_text_atomic(target, text, encoding=encoding)
    documents = document_mappings(tally)
    ci95 = identification_intervals(documents, resamples, seed)
    json_text = format_ida2id_json(tally.total, measures, signature, ci95, documents, spans)
    write_text_atomic(json_path, json_text)
    return Ida2idOutputs(target, json_path, tally, measures)
