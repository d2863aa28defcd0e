"""The First HAREM identification measures: one formula for the report and the bootstrap.

:func:`identification_figures` is the only place the six measures are
written.  A report's figures are that function on its one count row
(:func:`measures_from_counts`); its 95 % intervals are the same function on
every resample's totals (:func:`identification_intervals`).

The operations are the Java ``GlobalAlignmentEvaluator``'s, in its order,
so the digits agree with the reference ``.globalid``; a zero denominator is
undefined (the Java prints NaN), never 0 — F included, when P + R = 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from harem_pipeline.measures.bootstrap import BOOTSTRAP, interval_table
from harem_pipeline.measures.core import Columns, figures_of_row, harmonic, ratio
from harem_pipeline.measures.resampling import Resampling
from harem_pipeline.stages.ida2id import IdentificationCounts

MEASURE_KEYS = (
    "precisao",
    "abrangencia",
    "medida_f",
    "sobre_geracao",
    "sub_geracao",
    "erro_combinado",
)
"""The figures, named as the JSON report names them."""

INTERVAL_KEYS = ("precisao", "abrangencia", "medida_f")
"""The measures given a 95 % interval."""

LOWER_IS_BETTER = ("sobre_geracao", "sub_geracao", "erro_combinado")
"""The error rates: a system is better with less of them."""


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


def identification_figures(c: Columns) -> dict[str, np.ndarray]:
    """Precisão, Abrangência, Medida F, Sobre-geração, Sub-geração, Erro Combinado."""
    credit = c["correct"] + c["partial_correct_sum"]
    precision = ratio(credit, c["identified"])
    recall = ratio(credit, c["total_cd"])
    error = c["partial_incorrect_sum"] + c["missing"] + c["spurious"]
    judged = c["partial_occurrences"] + c["correct"] + c["spurious"] + c["missing"]
    return {
        "precisao": precision,
        "abrangencia": recall,
        "medida_f": harmonic(precision, recall, np.nan),
        "sobre_geracao": ratio(c["spurious"], c["identified"]),
        "sub_geracao": ratio(c["missing"], c["total_cd"]),
        "erro_combinado": ratio(error, judged),
    }


def measures_from_counts(counts: IdentificationCounts) -> IdentificationMeasures:
    """The report's measures: :func:`identification_figures` on one count row."""
    figures = figures_of_row(identification_figures, counts.as_mapping())
    return IdentificationMeasures(*(figures[key] for key in MEASURE_KEYS))


def identification_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resampling: Resampling = BOOTSTRAP,
) -> dict[str, Any] | None:
    """``{"precisao": [lo, hi], "abrangencia": …, "medida_f": …}`` from a document bootstrap.

    ``documents`` as :func:`harem_pipeline.stages.tally.document_rows` gives
    them; None without resamples; an interval is None when undefined in
    every resample.
    """
    table = interval_table(list(documents.values()), identification_figures, resampling)
    return None if table is None else {key: table[key] for key in INTERVAL_KEYS}
