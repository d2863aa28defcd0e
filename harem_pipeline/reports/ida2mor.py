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

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harem_pipeline.atomic import write_text_atomic
from harem_pipeline.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.formats.alinhado import iter_lines
from harem_pipeline.formats.report import format_fields
from harem_pipeline.formats.vizir import Outcome
from harem_pipeline.numbers import java_double
from harem_pipeline.reports.jsontext import format_report_json
from harem_pipeline.stages.ida2mor import (
    FIELD_KEYS,
    FIELD_LABELS,
    FieldCounts,
    FieldMeasures,
    MorphologyCounts,
    count_morphology,
    document_mappings,
    measures_from_counts,
    morphology_intervals,
)
from harem_pipeline.stages.vizir import Scenario
from harem_pipeline.textio import derived_path

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
        ("Total classificadas pelo sistema", str(counts.total_sistema)),
        ("Pontuação", format_value(float(counts.pontuacao))),
    ]
    fields += [(name, format_value(getattr(measures, key))) for name, key in _MEASURE_LABELS]
    return [f"{label}:", *format_fields(fields)]


def format_ida2mor_text(
    counts: MorphologyCounts,
    scenario: Scenario,
    signature: str,
    run: str | None = None,
    subset: str | None = None,
) -> str:
    """The text report."""
    lines = [
        TITLE,
        *format_fields(
            [
                ("Execução", run or UNDEFINED_TEXT),
                ("Subconjunto", subset or UNDEFINED_TEXT),
                ("Cenário", SCENARIO_LABELS[scenario]),
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
        "total_sistema": counts.total_sistema,
        "pontuacao": float(counts.pontuacao),
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
) -> dict[str, Any]:
    """The JSON twin as a dict; ``intervals`` from ``morphology_intervals`` (None: none)."""
    return {
        "signature": signature,
        "scenario": scenario.value,
        "run": run,
        "subset": subset,
        "fields": {
            key: field_json(counts.field(key), None if intervals is None else intervals[key])
            for key in FIELD_KEYS
        },
        "documents": document_mappings(counts),
    }


def format_ida2mor_json(
    counts: MorphologyCounts,
    scenario: Scenario,
    signature: str,
    run: str | None = None,
    subset: str | None = None,
    intervals: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """The JSON twin as text (UTF-8, floats with every digit, one document a line)."""
    return format_report_json(
        ida2mor_json_object(counts, scenario, signature, run, subset, intervals)
    )


@dataclass(frozen=True, slots=True)
class Ida2MorOutputs:
    """Where the two reports went, and the counts they were made from."""

    text: Path
    json: Path
    counts: MorphologyCounts


def default_output(path: str | os.PathLike[str]) -> Path:
    """``FILE.altmor`` → ``FILE.ida2mor`` (any other name gets ``.ida2mor`` appended)."""
    return derived_path(path, ".ida2mor", replaces=".altmor")


def write_ida2mor(
    path: str | os.PathLike[str],
    scenario: Scenario,
    signature: str,
    output: str | os.PathLike[str] | None = None,
    run: str | None = None,
    subset: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Ida2MorOutputs:
    """Count an ``.altmor`` file in one streaming pass and write ``OUT`` and ``OUT.json``.

    The text report is written in the input's encoding (like every HAREM
    report), the JSON in UTF-8 with the intervals of a ``resamples``-draw
    document bootstrap (0: ``ci95`` null); both atomically, JSON last.
    """
    target = Path(output) if output is not None else default_output(path)
    encoding, lines = iter_lines(path)
    counts = count_morphology(lines, str(path))
    text = format_ida2mor_text(counts, scenario, signature, run, subset)
    json_path = target.with_name(target.name + ".json")
    write_text_atomic(target, text, encoding)
    intervals = morphology_intervals(document_mappings(counts), resamples, seed)
    json_text = format_ida2mor_json(counts, scenario, signature, run, subset, intervals)
    write_text_atomic(json_path, json_text)
    return Ida2MorOutputs(target, json_path, counts)
