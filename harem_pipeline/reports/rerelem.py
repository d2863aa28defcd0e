"""The ReRelEM summary as the official ``.resumo`` text and its JSON twin.

Labels and layout are ``GlobalRelationsEvaluatorM2``'s (docs/spec/rerelem.md,
stage 8); counts print as integers, the rest as Java's ``Double.toString``.
"""

from __future__ import annotations

from typing import Any

from harem_pipeline.measures.rerelem import Block, RerelemFigures
from harem_pipeline.text.numbers import java_double


def _figure(value: float) -> float | str:
    """A JSON figure: the number, or its Java text when it is NaN or infinite."""
    return value if value == value and abs(value) != float("inf") else java_double(value)


def _count_lines(item: Block, correct_label: str) -> list[str]:
    return [
        f"Total na CD: {int(item.gold)}",
        f"Total identificadas: {int(item.identified)}",
        f"{correct_label}: {int(item.correct)}",
        f"Espúrios: {item.spurious}",
        f"Em Falta: {item.missing}",
        f"Precisão: {java_double(item.precision)}",
        f"Abrangência: {java_double(item.recall)}",
        f"Medida F: {java_double(item.f)}",
    ]


def format_summary(veil: str, scenario: str, figures: RerelemFigures) -> list[str]:
    """The 33 lines of a ``.resumo``."""
    score = figures.score
    return [
        "Avaliação do ReRelEM",
        "Descrição do cenário HAREM",
        "\t" + veil,
        "Descrição do cenário ReRelEM",
        "\t" + scenario,
        "",
        "Avaliação de CORELs",
        *_count_lines(figures.corels, "Total correctamente identificados"),
        "",
        "Avaliação de Relações",
        *_count_lines(figures.relations, "Total correctamente identificadas"),
        "",
        "Avaliação Global - ReRelEM",
        f"Pontuação na CD: {java_double(score.gold)}",
        f"Pontuação máxima possível do Sistema: {java_double(score.identified)}",
        f"Pontuação do Sistema: {java_double(score.correct)}",
        f"Precisão: {java_double(score.precision)}",
        f"Abrangência: {java_double(score.recall)}",
        f"Medida F: {java_double(score.f)}",
    ]


def _block_json(item: Block, counts: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if counts:
        out |= {
            "gold": int(item.gold),
            "identified": int(item.identified),
            "correct": int(item.correct),
            "spurious": item.spurious,
            "missing": item.missing,
        }
    else:
        out |= {"gold": item.gold, "maximum_system": item.identified, "system": item.correct}
    out |= {
        "precision": _figure(item.precision),
        "recall": _figure(item.recall),
        "f": _figure(item.f),
    }
    return out


def summary_json(
    veil: str, scenario: str, figures: RerelemFigures, documents: dict[str, Any]
) -> dict[str, Any]:
    """The JSON twin of a ``.resumo``: the three blocks and the per-document counts."""
    return {
        "report": "rerelem",
        "veil": veil,
        "scenario": scenario,
        "corels": _block_json(figures.corels),
        "relations": _block_json(figures.relations),
        "score": _block_json(figures.score, counts=False),
        "documents": documents,
    }
