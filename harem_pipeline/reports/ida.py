"""The Ida report: the ``.ida`` text as the Java ``GlobalSemanticEvaluator`` prints it, and JSON.

Text: the official block first, every line as the Java writes it (labels,
``Double.toString`` numbers, ``NaN``/``Infinity`` for a zero denominator,
blank lines), then our lines:

* ``Avaliação por categoria``: one line per category, tab-separated,
  identification P, R, F and classification P, R, F (see
  :mod:`harem_pipeline.stages.ida` for how a pair is split by category);
* for First HAREM files, ``Avaliação Primeiro HAREM (2005)``: P, R and F of
  the views categories only, types only, flat and combined ``2 − 1/n``;
* ``Assinatura: <signature>``.

JSON: ``signature``, ``scenario``, ``alt``, ``identificacao``,
``classificacao``, ``por_categoria``, ``primeiro_harem`` (null when not
First HAREM), ``ci95`` (document-bootstrap 95 % intervals of both blocks'
P/R/F, null without bootstrap) and ``documents`` (per-document counts).
An undefined figure is ``null`` in the JSON.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from harem_pipeline.formats.report import ERROR_AND_FIGURE_LABELS
from harem_pipeline.measures.semantic import (
    CLASSIFICATION_KEYS,
    CLASSIFICATION_PREFIX,
    FIRST_HAREM_VIEWS,
    IDENTIFICATION_KEYS,
    first_harem_figures,
    semantic_figures,
)
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.text.numbers import java_double

if TYPE_CHECKING:
    from harem_pipeline.stages.ida import SemanticTally

SCENARIO_LABEL = "Descrição do cenário avaliado"
IDENTIFICATION_TITLE = "Avaliação Global - Identificação"
CLASSIFICATION_TITLE = "Avaliação Global - Classificação"
IDENTIFICATION_LABELS = (
    "Total de EMs identificadas na CD",
    "Total de EMs identificadas pelo sistema",
    "Total correctamente identificadas",
    *ERROR_AND_FIGURE_LABELS,
)
CLASSIFICATION_LABELS = (
    "Valor máximo possível para a Classificação na CD",
    "Valor máximo possível para a Classificação do sistema",
    "Valor da Classificação do sistema",
    "Precisão Máxima do Sistema",
    "Abrangência Máxima na CD",
    "Medida F",
)
CATEGORY_TITLE = "Avaliação por categoria"
CATEGORY_COLUMNS = (
    "Categoria",
    "Precisão (id)",
    "Abrangência (id)",
    "Medida F (id)",
    "Precisão (class)",
    "Abrangência (class)",
    "Medida F (class)",
)
FIRST_HAREM_TITLE = "Avaliação Primeiro HAREM (2005)"
FIRST_HAREM_LABELS = {
    "categorias": "Só categorias",
    "tipos": "Só tipos (entre as de categoria certa)",
    "plana": "Plana (categoria e tipo)",
    "combinada": "Combinada (0, 1, 2 - 1/n)",
}
SIGNATURE_LABEL = "Assinatura"
_PRF = ("precisao", "abrangencia", "medida_f")


def _number(value: Any) -> str:
    return java_double(float(value))


def official_lines(header: str, figures: Mapping[str, Any]) -> list[str]:
    """The Java's lines, without line ends (blank lines as empty strings)."""
    lines = [f"{SCENARIO_LABEL}:", f"\t#{header}", "", IDENTIFICATION_TITLE]
    lines += [
        f"{label}: {_number(figures[key])}"
        for label, key in zip(IDENTIFICATION_LABELS, IDENTIFICATION_KEYS, strict=True)
    ]
    lines += [""] * 4 + [CLASSIFICATION_TITLE]
    lines += [
        f"{label}: {_number(figures[CLASSIFICATION_PREFIX + key])}"
        for label, key in zip(CLASSIFICATION_LABELS, CLASSIFICATION_KEYS, strict=True)
    ]
    return lines + [""] * 4


def format_ida_text(tally: SemanticTally, signature: str) -> str:
    """The ``.ida`` report text (``\\n`` line ends)."""
    lines = official_lines(tally.header, semantic_figures(asdict(tally.total)))
    lines += [CATEGORY_TITLE, "\t".join(CATEGORY_COLUMNS)]
    for cat, counts in tally.categories:
        figures = semantic_figures(asdict(counts))
        keys = [*_PRF, *(CLASSIFICATION_PREFIX + key for key in _PRF)]
        lines.append("\t".join([cat, *(_number(figures[key]) for key in keys)]))
    if tally.first_harem is not None:
        views = first_harem_figures(asdict(tally.first_harem))
        lines += ["", FIRST_HAREM_TITLE]
        for view in FIRST_HAREM_VIEWS:
            values = views[view]
            lines.append(
                f"{FIRST_HAREM_LABELS[view]}: Precisão {_number(values['precisao'])}, "
                f"Abrangência {_number(values['abrangencia'])}, "
                f"Medida F {_number(values['medida_f'])}"
            )
    lines += ["", f"{SIGNATURE_LABEL}: {signature}"]
    return "\n".join(lines) + "\n"


def _json_number(value: Any) -> float | None:
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def _blocks(figures: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    return {
        "identificacao": {key: _json_number(figures[key]) for key in IDENTIFICATION_KEYS},
        "classificacao": {
            key: _json_number(figures[CLASSIFICATION_PREFIX + key]) for key in CLASSIFICATION_KEYS
        },
    }


def _ci95(ci95: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if ci95 is None:
        return None
    return {
        "identificacao": {key: ci95[key] for key in _PRF},
        "classificacao": {key: ci95[CLASSIFICATION_PREFIX + key] for key in _PRF},
    }


def ida_json(
    tally: SemanticTally,
    signature: str,
    scenario: Scenario,
    alt: Alt,
    ci95: Mapping[str, Any] | None,
    documents: Mapping[str, Mapping[str, float]],
) -> dict[str, Any]:
    """The JSON twin as a plain object."""
    blocks = _blocks(semantic_figures(asdict(tally.total)))
    first = None
    if tally.first_harem is not None:
        views = first_harem_figures(asdict(tally.first_harem))
        first = {
            view: {key: _json_number(views[view][key]) for key in _PRF}
            for view in FIRST_HAREM_VIEWS
        }
    return {
        "signature": signature,
        "scenario": scenario.value,
        "alt": alt.value,
        **blocks,
        "por_categoria": {
            cat: _blocks(semantic_figures(asdict(counts))) for cat, counts in tally.categories
        },
        "primeiro_harem": first,
        "ci95": _ci95(ci95),
        "documents": {docid: dict(counts) for docid, counts in documents.items()},
    }
