"""The morphology measures: one formula for the report and the bootstrap.

The rules are docs/spec/vizir-altinamor-ida2mor.md §5.

:func:`morphology_figures` is the only place the six ratios of a field are
written; a report's figures are that function on its one count row
(:func:`measures_from_counts`), its intervals the same function on every
resample (:func:`morphology_intervals`).

Medida F is written ``2·Pontuação / (Total classificadas + Total na CD)``,
which is ``2PR/(P+R)`` exactly: one rounding of exact operands, so the
printed digits are those of exact rational arithmetic.  It is undefined
when P or R is, and 0 (not undefined) when both are defined and the score
is 0, as the spec says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from harem_pipeline.formats import vizir as vizir_format
from harem_pipeline.measures.bootstrap import BOOTSTRAP, interval_table
from harem_pipeline.measures.core import Columns, figures_of_row, ratio
from harem_pipeline.measures.resampling import Resampling
from harem_pipeline.stages.ida2mor import FIELD_KEYS, FieldCounts

MEASURE_KEYS = (
    "precisao",
    "abrangencia",
    "medida_f",
    "sobre_especificacao",
    "sobre_geracao",
    "sub_geracao",
)
"""A field's figures, named as the JSON report names them."""

INTERVAL_KEYS = ("precisao", "abrangencia", "medida_f")
"""The measures of each field given a 95 % interval."""

LOWER_IS_BETTER = tuple(
    f"{key}.{name}"
    for key in FIELD_KEYS
    for name in ("sobre_especificacao", "sobre_geracao", "sub_geracao")
)
"""The error rates: a system is better with less of them."""


@dataclass(frozen=True, slots=True)
class FieldMeasures:
    """The ratios of one field (docs/spec/vizir-altinamor-ida2mor.md §5); ``None``: undefined."""

    precisao: float | None
    abrangencia: float | None
    medida_f: float | None
    sobre_especificacao: float | None
    sobre_geracao: float | None
    sub_geracao: float | None


def field_figures(c: Columns, prefix: str = "") -> dict[str, np.ndarray]:
    """The six ratios of one field from its count columns (named ``prefix`` + field name)."""

    def col(name: str) -> np.ndarray:
        return np.asarray(c[prefix + name], dtype=float)

    score = vizir_format.morph_credit(col("correct"), col("partially_correct"))
    system, cd = col("total_system"), col("total_cd")
    precision = ratio(score, system)
    recall = ratio(score, cd)
    f_measure = ratio(2 * score, system + cd)
    f_measure[np.isnan(precision) | np.isnan(recall)] = np.nan
    over = col("over_specified") + col("partially_over_specified")
    return {
        "precisao": precision,
        "abrangencia": recall,
        "medida_f": f_measure,
        "sobre_especificacao": ratio(over, system),
        "sobre_geracao": ratio(col("spurious"), system),
        "sub_geracao": ratio(col("missing"), cd),
    }


def morphology_figures(c: Columns) -> dict[str, np.ndarray]:
    """``<field>.<measure>`` for the three fields (columns ``<field>.<count>``)."""
    return {
        f"{key}.{name}": value
        for key in FIELD_KEYS
        for name, value in field_figures(c, f"{key}.").items()
    }


def measures_from_counts(counts: FieldCounts) -> FieldMeasures:
    """One field's measures: :func:`field_figures` on its one count row."""
    figures = figures_of_row(field_figures, counts.as_mapping())
    return FieldMeasures(*(figures[key] for key in MEASURE_KEYS))


def morphology_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resampling: Resampling = BOOTSTRAP,
) -> dict[str, dict[str, Any]] | None:
    """``{field: {"precisao": [lo, hi], "abrangencia": …, "medida_f": …}}`` by document bootstrap.

    ``documents`` as :func:`harem_pipeline.stages.tally.document_rows` gives
    them; None without resamples; an interval is None when undefined in
    every resample.
    """
    table = interval_table(list(documents.values()), morphology_figures, resampling)
    if table is None:
        return None
    return {key: {name: table[f"{key}.{name}"] for name in INTERVAL_KEYS} for key in FIELD_KEYS}
