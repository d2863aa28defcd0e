"""Hand-computed CSC (Emir) cases, each number derived in its comment.

The veil is the whole Second HAREM grid (the header Véus writes for ``*``):
10 categories (ABSTRACCAO ACONTECIMENTO COISA LOCAL OBRA ORGANIZACAO OUTRO
PESSOA TEMPO VALOR); PESSOA has 8 types, LOCAL 4 (FISICO HUMANO OUTRO
VIRTUAL), COISA 5, ACONTECIMENTO 4, OBRA 4; LOCAL(HUMANO) has 6 subtypes
and every other type the single subtype OUTRO (so a subtype there earns
γ(1 − 1/1) = 0).  Sums are written in the Java's order (id first, then
categories, types, subtypes), so the floats are the Java's to the last bit.
"""

from __future__ import annotations

import pytest

from harem_pipeline.formats.alinhado import parse_tag
from harem_pipeline.formats.semantic import LevelResult
from harem_pipeline.formats.veils import format_veil, parse_veil, read_grid
from harem_pipeline.stages.emir import (
    Filter,
    Weights,
    filter_from_header,
    parse_weights,
    score_pair,
)


@pytest.fixture(scope="module")
def veil() -> Filter:
    grid = read_grid()
    return filter_from_header(format_veil(parse_veil(None, grid)), grid, "test")


def em(attrs: str) -> str:
    return f"<EM {attrs}>x</EM>"


def score(
    veil: Filter, gold: str, system: str | None, weights: Weights | None = None, w: float = 1.0
):
    g = parse_tag(em(gold))
    s = None if system is None else parse_tag(em(system))
    return score_pair(g, s, w, 1.0, veil, weights or Weights())


def test_grid_counts(veil: Filter) -> None:
    # the counts every expected number below relies on
    assert veil.category_count == 10
    assert veil.type_count("PESSOA") == 8
    assert veil.type_count("LOCAL") == 4
    assert veil.type_count("COISA") == 5
    assert veil.subtype_count("LOCAL", "HUMANO") == 6
    assert veil.subtype_count("PESSOA", "CARGO") == 1


def test_exact_category_and_type(veil: Filter) -> None:
    result = score(veil, 'CATEG="PESSOA" TIPO="CARGO"', 'CATEG="PESSOA" TIPO="CARGO"')
    # 1 + α(1 − 1/10) + β(1 − 1/8) = 1 + 0.9 + 0.4375; exemplo0 cdAlt1 prints 2.3375
    expected = 1.0 + (1 - 1 / 10) * 1.0 + (1 - 1 / 8) * 0.5
    assert expected == 2.3375
    assert result.csc == result.max_csc_gold == result.max_csc_system == expected
    assert result.category == LevelResult(("PESSOA",), (), ())
    assert result.type == LevelResult(("CARGO",), (), ())


def test_subtype(veil: Filter) -> None:
    gold = 'CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="DIVISAO"'
    result = score(veil, gold, gold)
    # 1 + 0.9 + β(1 − 1/4) + γ(1 − 1/6); exemplo0 cd4 prints 2.4833333333333334
    expected = 1.0 + 0.9 + (1 - 1 / 4) * 0.5 + (1 - 1 / 6) * 0.25
    assert result.csc == expected == 2.4833333333333334


def test_vague_gold(veil: Filter) -> None:
    gold = 'CATEG="ACONTECIMENTO|ACONTECIMENTO|OBRA" TIPO="EVENTO|ORGANIZADO|PLANO"'
    result = score(veil, gold, 'CATEG="ACONTECIMENTO" TIPO="EVENTO"')
    # the system gets ACONTECIMENTO/EVENTO: 1 + 0.9 + 0.5(1 − 1/4) = 2.275
    assert result.csc == 1.0 + 0.9 + 0.375 == 2.275
    # the gold against itself: 2 categories, 3 types: 1 + 2·0.9 + 3·0.375 = 3.925 (exemplo0 cd5)
    assert result.max_csc_gold == 3.925
    assert result.category == LevelResult(("ACONTECIMENTO",), (), ("OBRA",))
    assert result.type == LevelResult(("EVENTO",), (), ("ORGANIZADO",))


def test_spurious_type_and_penalties(veil: Filter) -> None:
    gold, system = 'CATEG="COISA" TIPO="OBJECTO"', 'CATEG="COISA" TIPO="CLASSE"'
    result = score(veil, gold, system)
    # category only: 1 + 0.9 = 1.9 (exemplo0 cd6: the Java never subtracts penalties)
    assert result.csc == 1.9
    assert result.type == LevelResult((), ("CLASSE",), ("OBJECTO",))
    penalised = score(veil, gold, system, Weights(penalties=True))
    # the documented formula: 1.9 − β/Ntype(COISA) = 1.9 − 0.5/5
    assert penalised.csc == 1.9 - (1 / 5) * 0.5


def test_spurious_and_missing_category(veil: Filter) -> None:
    result = score(veil, 'CATEG="PESSOA" TIPO="INDIVIDUAL"', 'CATEG="LOCAL"')
    # nothing right: the identification weight only
    assert result.csc == 1.0
    assert result.category == LevelResult((), ("LOCAL",), ("PESSOA",))
    assert result.type == LevelResult()
    penalised = score(veil, 'CATEG="PESSOA"', 'CATEG="LOCAL"', Weights(penalties=True))
    assert penalised.csc == 1.0 - (1 / 10) * 1.0  # α/Ncat


def test_missing_and_spurious_subtype(veil: Filter) -> None:
    gold = 'CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="PAIS"'
    missing = score(veil, gold, 'CATEG="LOCAL" TIPO="HUMANO"')
    # 1 + 0.9 + 0.375 = 2.275, the subtype missing
    assert missing.csc == 2.275
    assert missing.subtype == LevelResult((), (), ("PAIS",))
    wrong = score(veil, gold, 'CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="RUA"')
    assert wrong.csc == 2.275
    assert wrong.subtype == LevelResult((), ("RUA",), ("PAIS",))
    penalised = score(
        veil, gold, 'CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="RUA"', Weights(penalties=True)
    )
    assert penalised.csc == 2.275 - (1 / 6) * 0.25  # γ/Nsub(LOCAL, HUMANO)


def test_weights(veil: Filter) -> None:
    gold = 'CATEG="PESSOA" TIPO="CARGO"'
    result = score(veil, gold, gold, parse_weights("2;1;0.5;0.25"))
    assert result.csc == 2.0 + 0.9 + 0.4375  # id = 2
    result = score(veil, gold, gold, parse_weights("1;2;1;0.5"))
    assert result.csc == 1.0 + (1 - 1 / 10) * 2.0 + (1 - 1 / 8) * 1.0  # 3.675


def test_partial_weight_and_missing_and_spurious_records(veil: Filter) -> None:
    gold = 'CATEG="PESSOA" TIPO="CARGO"'
    partial = score(veil, gold, gold, w=0.25)
    assert partial.weight == 0.25 and partial.csc == 2.3375  # Peso carries the partial weight
    missing = score(veil, gold, None, w=0.0)
    # [null]: nothing scored, the gold side's maximum kept (exemplo0 cd3 style)
    assert (missing.csc, missing.max_csc_system, missing.max_csc_gold) == (0.0, 0.0, 2.3375)
    spurious = score(veil, 'CATEG="ESPURIO"', gold, w=0.0)
    assert (spurious.csc, spurious.max_csc_gold, spurious.max_csc_system) == (0.0, 0.0, 2.3375)


def test_only_one_spurious_category_listed(veil: Filter) -> None:
    # AttributeEvaluation.addSpurious keeps a tuple only if it shares the upper levels
    # with every one kept before: of LOCAL|OBRA, one category only is listed
    result = score(veil, 'CATEG="PESSOA"', 'CATEG="LOCAL|OBRA"')
    assert len(result.category.spurious) == 1
