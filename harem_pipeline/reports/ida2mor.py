"""The Ida2Mor report: Portuguese text, one ``Label: value`` per line, and its JSON twin.

Layout of the text: a header (run, subset, scenario, signature), then one
block per field (Género, Número, Combinada), each with the outcome counts,
the two totals, the score and the ratios of
docs/spec/vizir-altinamor-ida2mor.md §5.  Integers print as
integers, real numbers as Java's ``Double.toString`` (like every HAREM
report), an undefined ratio as ``-``; in JSON an undefined ratio is
``null``.  Reports render a signature; they never compute one.

The JSON adds to each field object ``ci95``: 95 % document-bootstrap
intervals ``{"precisao": [lo, hi], "abrangencia": …, "medida_f": …}``, an
interval ``null`` when undefined in every resample, the whole object
``null`` when no bootstrap was run; and, last, ``documents``: each
document's counts (``"<field>.<count>"``, zeros left out) for ``harem
compare``.  The text report shows no intervals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harem_pipeline.formats.report import format_fields
from harem_pipeline.formats.veils import veil_in_words
from harem_pipeline.formats.vizir import Outcome
from harem_pipeline.measures.morphology import FieldMeasures, measures_from_counts
from harem_pipeline.model import Scenario
from harem_pipeline.stages.ida2mor import (
    FIELD_KEYS,
    OUTCOME_FIELDS,
    FieldCounts,
    MorphologyCounts,
    MorphologyTotals,
    morphology_document_rows,
)
from harem_pipeline.stages.tally import row_names
from harem_pipeline.text.numbers import java_double

FIELD_LABELS = {"genero": "Género", "numero": "Número", "combinada": "Combinada"}

JSON_COUNT_KEYS = {
    **{name: outcome.key for outcome, name in OUTCOME_FIELDS.items()},
    "total_cd": "total_cd",
    "total_system": "total_sistema",
}
"""``FieldCounts`` field → the JSON's Portuguese name (``correct`` → ``correcto``)."""

UNDEFINED_TEXT = "-"
TITLE = "Avaliação Global - Classificação Morfológica"
SCENARIO_LABELS = {Scenario.ABSOLUTE: "absoluto", Scenario.RELATIVE: "relativo"}

# (label, value of the field's counts and measures) in printed order.
_COUNT_LABELS = tuple((o.value, o) for o in Outcome)
_MEASURE_LABELS = (
    ("Precisão", "precisao"),
    ("Abrangência", "abrangencia"),
    ("Medida F", "medida_f"),
    ("Sobre-especificação", "sobre_especificacao"),
    ("Sobre-geração", "sobre_geracao"),
    ("Sub-geração", "sub_geracao"),
)


def format_value(value: int | float | None) -> str:
    """``-`` for undefined, integers as such, reals as Java prints them."""
    if value is None:
        return UNDEFINED_TEXT
    if isinstance(value, int):
        return str(value)
    return java_double(value)


def field_lines(label: str, counts: FieldCounts, measures: FieldMeasures) -> list[str]:
    """One field's block: title, counts, totals, score, ratios."""
    fields = [(word, str(counts.count(outcome))) for word, outcome in _COUNT_LABELS]
    fields += [
        ("Total na CD", str(counts.total_cd)),
        ("Total classificadas pelo sistema", str(counts.total_system)),
        ("Pontuação", format_value(float(counts.score))),
    ]
    fields += [(name, format_value(getattr(measures, key))) for name, key in _MEASURE_LABELS]
    return [f"{label}:", *format_fields(fields)]


def format_ida2mor_text(
    counts: MorphologyCounts,
    scenario: Scenario,
    signature: str,
    run: str | None = None,
    subset: str | None = None,
    veil: str | None = None,
) -> str:
    """The text report (the evaluation veil in words after the scenario, when given)."""
    lines = [
        TITLE,
        *format_fields(
            [
                ("Execução", run or UNDEFINED_TEXT),
                ("Subconjunto", subset or UNDEFINED_TEXT),
                ("Cenário", SCENARIO_LABELS[scenario]),
                *([] if veil is None else [("Véu de avaliação", veil_in_words(veil))]),
                ("Assinatura", signature),
            ]
        ),
    ]
    for key in FIELD_KEYS:
        field = counts.field(key)
        lines.append("")
        lines += field_lines(FIELD_LABELS[key], field, measures_from_counts(field))
    return "\n".join(lines) + "\n"


def field_json(counts: FieldCounts, ci95: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One field's JSON object: counts, totals, score, ratios (``None`` → ``null``), ``ci95``."""
    measures = measures_from_counts(counts)
    return {
        "counts": {outcome.key: counts.count(outcome) for outcome in Outcome},
        "total_cd": counts.total_cd,
        "total_sistema": counts.total_system,
        "pontuacao": float(counts.score),
        **{key: getattr(measures, key) for _, key in _MEASURE_LABELS},
        "ci95": None if ci95 is None else dict(ci95),
    }


def ida2mor_json_object(
    counts: MorphologyCounts,
    scenario: Scenario,
    signature: str,
    run: str | None = None,
    subset: str | None = None,
    intervals: Mapping[str, Mapping[str, Any]] | None = None,
    veil: str | None = None,
    document_rows: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Any]:
    """The JSON twin as a dict; ``intervals`` from ``morphology_intervals`` (None: none).

    ``document_rows``: ``morphology_document_rows(counts.documents)`` when the
    caller has it already (else it is computed here).
    """
    if document_rows is None:
        document_rows = morphology_document_rows(counts.documents)
    return {
        "signature": signature,
        "scenario": scenario.value,
        "run": run,
        "subset": subset,
        **({} if veil is None else {"veil": veil}),
        "fields": {
            key: field_json(counts.field(key), None if intervals is None else intervals[key])
            for key in FIELD_KEYS
        },
        "documents": {docid: json_row(row) for docid, row in document_rows.items()},
    }


def json_row(row: Mapping[str, float]) -> dict[str, float]:
    """A document's counts with the JSON's names (``genero.correct`` → ``genero.correcto``)."""
    names = _JSON_NAMES
    return {names.get(name) or json_name(name): value for name, value in row.items()}


def json_name(name: str) -> str:
    """The JSON's name of one count (``genero.correct`` → ``genero.correcto``)."""
    key, _, count = name.partition(".")
    return f"{key}.{JSON_COUNT_KEYS[count]}"


_JSON_NAMES = {name: json_name(name) for name in row_names(MorphologyTotals)}
"""Every count's JSON name, made once (a document's row is renamed with it)."""


def row_from_json(row: Mapping[str, float]) -> dict[str, float]:
    """:func:`json_row` undone: a JSON document's counts with the code's names."""
    fields = {json: name for name, json in JSON_COUNT_KEYS.items()}
    out = {}
    for name, value in row.items():
        key, _, count = name.partition(".")
        out[f"{key}.{fields.get(count, count)}"] = value
    return out
