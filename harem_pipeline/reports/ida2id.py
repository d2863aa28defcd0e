"""The Ida2ID report: text as the Java ``.globalid`` prints it, and its JSON twin.

The text keeps the Java labels and order (``Total na CD`` … ``Erro
Combinado``), integers as integers and every real number as Java's
``Double.toString`` prints it, then one ``Assinatura:`` line with the
reproducibility signature.  An undefined ratio (zero denominator) is ``-``
where the Java would print ``NaN``.

The labels are Portuguese with accents (``Precisão``); the report is
written in the encoding of the file it was computed from (ISO-8859-1 for
the Java-era files, like the reference ``.globalid``; UTF-8 otherwise), so
the labels are the same characters in either case.

The JSON twin adds, after ``signature``, ``ci95`` (95 % document-bootstrap
intervals of Precisão, Abrangência and Medida F: ``{"precisao": [lo, hi],
"abrangencia": …, "medida_f": …}``, an interval ``null`` when undefined in
every resample, the whole object ``null`` when no bootstrap was run) and
``documents`` (each document's counts, zeros left out, for ``harem
compare``).  The text report shows no intervals: its lines are the
``.globalid``'s.

When the span measures of the same documents are given (the pipeline
gives them; see :mod:`harem_pipeline.stages.harem_spans`), the text gains a
short block after the ``.globalid`` lines, before ``Assinatura``, and the
JSON a ``measures`` object (``labelled``, ``unlabelled``, ``per_label`` and
``signature`` as ``harem measures --json`` prints them) before ``documents``.
Without them both are exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harem_pipeline.formats.report import ERROR_AND_FIGURE_LABELS, format_fields
from harem_pipeline.formats.veils import veil_in_words
from harem_pipeline.measures.identification import MEASURE_KEYS, IdentificationMeasures
from harem_pipeline.measures.spans import MeasuresReport
from harem_pipeline.reports.measures import measures_json
from harem_pipeline.stages.ida2id import IdentificationCounts
from harem_pipeline.text.numbers import java_double

UNDEFINED_TEXT = "-"
SIGNATURE_LABEL = "Assinatura"
VEIL_LABEL = "Véu de avaliação"

LABELS = (
    "Total na CD",
    "Total identificadas",
    "Total correctamente identificadas",
    "Total Ocorrências Parcialmente Correctos",
    "Soma Parcialmente Correctos",
    "Soma Parcialmente Incorrectos",
    *ERROR_AND_FIGURE_LABELS,
    "Erro Combinado",
)
"""Report labels in the order the Java prints them."""

JSON_KEYS = (
    "total_cd",
    "total_identificadas",
    "correctas",
    "ocorrencias_parciais",
    "soma_parciais_correctos",
    "soma_parciais_incorrectos",
    "espurios",
    "em_falta",
    *MEASURE_KEYS,
)
"""JSON keys, one per text label, same order; ``signature`` follows them."""


def report_values(
    counts: IdentificationCounts, measures: IdentificationMeasures
) -> tuple[int | float | None, ...]:
    """The fourteen reported values in label order."""
    return (
        counts.total_cd,
        counts.identified,
        counts.correct,
        counts.partial_occurrences,
        counts.partial_correct_sum,
        counts.partial_incorrect_sum,
        counts.spurious,
        counts.missing,
        measures.precision,
        measures.recall,
        measures.f_measure,
        measures.over_generation,
        measures.under_generation,
        measures.combined_error,
    )


def _format_value(value: int | float | None) -> str:
    if value is None:
        return UNDEFINED_TEXT
    if isinstance(value, int):
        return str(value)
    return java_double(value)


SPAN_ROWS = (("exact", "exacta"), ("overlap", "sobreposição"), ("intersection", "intersecção"))
"""Span measures in the text block: JSON name, Portuguese label."""


def format_span_block(spans: MeasuresReport) -> list[str]:
    """The span measures' lines: span totals, then P; R; F of each measure in both views."""
    match = spans.counts.labelled.match
    fields = [
        ("Extensões na CD", str(match.gold)),
        ("Extensões identificadas", str(match.system)),
    ]
    for view, suffix in (("labelled", ""), ("unlabelled", " sem categoria")):
        for name, label in SPAN_ROWS:
            prf = getattr(getattr(spans.measures, view), name)
            cells = "; ".join(_format_value(v) for v in (prf.precision, prf.recall, prf.f1))
            fields.append((f"Medida {label}{suffix} (P; A; F)", cells))
    return format_fields(fields)


def format_ida2id_text(
    counts: IdentificationCounts,
    measures: IdentificationMeasures,
    signature: str,
    spans: MeasuresReport | None = None,
    veil: str | None = None,
) -> str:
    """The text report: ``Label: value`` lines, the span block when ``spans`` is given,
    the evaluation veil in words when ``veil`` is given, then ``Assinatura: <signature>``."""
    values = report_values(counts, measures)
    lines = format_fields(
        (label, _format_value(value)) for label, value in zip(LABELS, values, strict=True)
    )
    if spans is not None:
        lines += format_span_block(spans)
    if veil is not None:
        lines += format_fields([(VEIL_LABEL, veil_in_words(veil))])
    lines += format_fields([(SIGNATURE_LABEL, signature)])
    return "\n".join(lines) + "\n"


def ida2id_json_object(
    counts: IdentificationCounts,
    measures: IdentificationMeasures,
    signature: str,
    ci95: Mapping[str, Any] | None = None,
    documents: Mapping[str, Mapping[str, float]] | None = None,
    spans: MeasuresReport | None = None,
    veil: str | None = None,
) -> dict[str, Any]:
    """The JSON twin as a dict: same figures, ``null`` for undefined, then ``signature``,
    ``ci95`` (None: no bootstrap), ``measures`` (only with ``spans``) and ``documents``
    (per-document counts)."""
    values = report_values(counts, measures)
    obj = {
        **dict(zip(JSON_KEYS, values, strict=True)),
        "signature": signature,
        "ci95": None if ci95 is None else dict(ci95),
    }
    if veil is not None:
        obj["veil"] = veil
    if spans is not None:
        obj["measures"] = span_measures_object(spans)
    obj["documents"] = dict(documents or {})
    return obj


def span_measures_object(spans: MeasuresReport) -> dict[str, Any]:
    """``harem measures --json``'s views, per-label table and signature (no per-document
    counts: the report's ``documents`` are the identification ones)."""
    full = measures_json(spans)
    return {key: full[key] for key in ("labelled", "unlabelled", "per_label", "signature")}
