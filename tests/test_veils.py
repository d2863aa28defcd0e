"""Veil syntax, the harem.conf grid and Java's set order (harem_pipeline.formats.veils)."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.veils import (
    DEFAULT_GRID_PATH,
    format_veil,
    parse_grid,
    parse_veil,
    read_grid,
)
from harem_pipeline.text.java import java_hash_order, java_string_hash
from tests.helpers.paths import DATA


@pytest.fixture(scope="module")
def grid():
    return read_grid()


def reference_header(data_dir, case: str) -> str:
    """The veil line the 2010 Java Véus printed first in a reference ``.veu`` file."""
    with gzip.open(data_dir / "reference" / case, "rt", encoding="iso8859-1") as handle:
        return handle.readline().rstrip("\n")


# ---------------------------------------------------------------------------
# Java hashing


def test_java_string_hash_known_values() -> None:
    # Values of Java's String.hashCode: "a" is 97; "Aa" and "BB" collide at
    # 65*31+97 = 66*31+66 = 2112; "polygenelubricants" overflows to Integer.MIN_VALUE.
    assert java_string_hash("a") == 97
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -(2**31)
    assert java_string_hash("") == 0
    assert java_string_hash(None) == 0


def test_java_set_order_of_local_fisico_subtypes() -> None:
    # Insertion order of harem.conf (plus OUTRO) and the order the Java header prints.
    inserted = ["AGUACURSO", "AGUAMASSA", "RELEVO", "PLANETA", "ILHA", "REGIAO", "OUTRO"]
    printed = ["AGUACURSO", "PLANETA", "AGUAMASSA", "RELEVO", "REGIAO", "OUTRO", "ILHA"]
    assert java_hash_order(inserted) == printed


# ---------------------------------------------------------------------------
# The grid


def test_shipped_grid_is_the_lampada_one(grid) -> None:
    assert DEFAULT_GRID_PATH.name == "harem.conf"
    assert grid.categories == (
        "ABSTRACCAO", "ACONTECIMENTO", "COISA", "LOCAL", "OBRA",
        "ORGANIZACAO", "OUTRO", "PESSOA", "TEMPO", "VALOR",
    )  # fmt: skip
    # Every category gets a type OUTRO, every other type a subtype OUTRO.
    assert grid.types("PESSOA")[-2:] == ("OUTRO", "POVO")
    assert grid.subtypes("PESSOA", "INDIVIDUAL") == ("OUTRO",)
    assert grid.subtypes("PESSOA", "OUTRO") == ()
    assert grid.subtypes("LOCAL", "OUTRO") == ("OUTRO",)  # from the S:OUTRO line
    assert grid.types("OUTRO") == ()  # "#T:OUTRO" is a comment


def test_total_veil_header_equals_the_reference(grid, data_dir) -> None:
    expected = reference_header(data_dir, "gabriel/total_muc.veu.gz")
    assert "#" + format_veil(parse_veil(None, grid)) == expected
    assert "#" + format_veil(parse_veil("*", grid)) == expected


def test_category_veil_headers_equal_the_reference(grid, data_dir) -> None:
    plo = parse_veil("PESSOA:LOCAL:ORGANIZACAO", grid)
    assert "#" + format_veil(plo) == reference_header(data_dir, "gabriel/PLO_muc.veu.gz")
    categories = ":".join(grid.categories)
    expected = reference_header(data_dir, "gabriel/cenario4_categs_muc.veu.gz")
    assert "#" + format_veil(parse_veil(categories, grid)) == expected


def test_grid_reader_stops_at_the_first_empty_line_and_ignores_relations() -> None:
    grid = parse_grid(["#c", "C:PESSOA", "T:INDIVIDUAL", "R:ident;ident", "", "C:LOCAL"])
    assert grid.categories == ("OUTRO", "PESSOA")
    assert grid.types("PESSOA") == ("INDIVIDUAL", "OUTRO")


@pytest.mark.parametrize(
    ("lines", "line", "expected"),
    [
        (["C:PESSOA", "Z:FOO"], 2, "a grid line"),
        (["T:INDIVIDUAL"], 1, "a C: line before the first T: line"),
        (["C:PESSOA", "S:X"], 2, "a T: line before the first S: line"),
        (["C:"], 1, "a grid line"),
    ],
)
def test_bad_grid_lines(lines: list[str], line: int, expected: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_grid(lines, "harem.conf")
    assert exc.value.line == line
    assert expected in str(exc.value)
    assert str(exc.value).startswith(f"harem.conf, line {line}: expected")


# ---------------------------------------------------------------------------
# Veil syntax


def test_veil_with_types_and_subtypes(grid) -> None:
    veil = parse_veil("LOCAL(FISICO{*};HUMANO{PAIS,RUA}):pessoa(*):TEMPO", grid)
    assert veil.contains_category("LOCAL") and veil.contains_category("TEMPO")
    assert not veil.contains_category("OBRA")
    assert veil.types("LOCAL") == ("FISICO", "HUMANO")
    assert veil.contains_subtype("LOCAL", "HUMANO", "RUA")
    assert not veil.contains_subtype("LOCAL", "HUMANO", "DIVISAO")
    assert set(veil.types("PESSOA")) == set(grid.types("PESSOA"))
    assert not veil.has_types("TEMPO")
    assert format_veil(veil) == (
        "LOCAL(FISICO{AGUACURSO,PLANETA,AGUAMASSA,RELEVO,REGIAO,OUTRO,ILHA};HUMANO{PAIS,RUA}):"
        "PESSOA(CARGO{OUTRO};GRUPOCARGO{OUTRO};GRUPOIND{OUTRO};GRUPOMEMBRO{OUTRO};"
        "INDIVIDUAL{OUTRO};MEMBRO{OUTRO};OUTRO;POVO{OUTRO}):TEMPO"
    )
    assert not veil.everything


def test_declared_veils_of_the_second_harem_all_parse(grid) -> None:
    # Every veil a Second HAREM run declared (lista_participantes_veus.tsv) is accepted.
    path = DATA / "lampada2" / "lista_participantes_veus.tsv"
    rows = path.read_text(encoding="utf-8").splitlines()[1:]
    veils = {row.split("\t")[1] for row in rows if row.strip()}
    assert len(veils) == 8
    for text in veils:
        veil = parse_veil(text, grid)
        assert veil.everything == (text == "*")


def test_header_line_parses_back(grid) -> None:
    veil = parse_veil("LOCAL(FISICO{*};HUMANO{*}):PESSOA:ORGANIZACAO:TEMPO", grid)
    again = parse_veil("#" + format_veil(veil), grid)
    assert format_veil(again) == format_veil(veil)


def test_intersection_looks_down_to_types(grid) -> None:
    def veil(text: str):
        return parse_veil(text, grid)

    assert veil("PESSOA").intersects(veil("PESSOA(INDIVIDUAL)"))  # no types named: enough
    assert veil("PESSOA(INDIVIDUAL)").intersects(veil("PESSOA(*)"))
    assert not veil("PESSOA(INDIVIDUAL)").intersects(veil("PESSOA(CARGO)"))
    assert not veil("PESSOA(INDIVIDUAL)").intersects(veil("PESSOA"))
    assert not veil("PESSOA:LOCAL").intersects(veil("TEMPO(*)"))


@pytest.mark.parametrize(
    ("text", "expected", "found"),
    [
        ("PESSOA(INDIVIDUO)", "a type of PESSOA of the grid (CARGO, GRUPOCARGO, GRUPOIND, "
         "GRUPOMEMBRO, INDIVIDUAL, MEMBRO, OUTRO, POVO)", "unknown type of PESSOA 'INDIVIDUO'"),
        ("LOCAL(HUMANO{CIDADE})", "a subtype of LOCAL(HUMANO) of the grid",
         "unknown subtype of LOCAL(HUMANO) 'CIDADE' at position 14"),
        ("PESSOA::LOCAL", "a category name in the veil", "':' at position 8"),
        ("PESSOA(;)", "a type name in the veil", "';' at position 8"),
        ("LOCAL(HUMANO{PAIS,})", "a subtype name in the veil", "'}' at position 19"),
        ("PESSOA LOCAL", "':' or the end of the veil", "' ' at position 7"),
        ("", "a category name in the veil", "end of veil at position 1"),
    ],
)  # fmt: skip
def test_bad_veils_name_the_problem(grid, text: str, expected: str, found: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_veil(text, grid, "--veil")
    message = str(exc.value)
    assert message.startswith(f"--veil: expected {expected}")
    assert found in message
    assert "\n" not in message


GRID_TREE = read_grid().tree


@st.composite
def veil_texts(draw):
    """Random veils drawn from the grid: categories, optional types, optional subtypes."""
    chosen = draw(st.lists(st.sampled_from(GRID_TREE), min_size=1, max_size=4, unique=True))
    parts = []
    for cat, types in chosen:
        if not types or draw(st.booleans()):
            parts.append(cat)
            continue
        picked = draw(st.lists(st.sampled_from(types), min_size=1, max_size=3, unique=True))
        rendered = []
        for typ, subs in picked:
            if subs and draw(st.booleans()):
                keep = draw(st.lists(st.sampled_from(subs), min_size=1, unique=True))
                typ += "{" + ",".join(keep) + "}"
            rendered.append(typ)
        parts.append(cat + "(" + ";".join(rendered) + ")")
    return ":".join(parts)


@settings(derandomize=True, deadline=None, max_examples=150)
@given(veil_texts())
def test_format_then_parse_is_stable(text: str) -> None:
    grid = read_grid()
    veil = parse_veil(text, grid)
    header = format_veil(veil)
    again = parse_veil("#" + header, grid)
    assert format_veil(again) == header
    assert _as_sets(again.tree) == _as_sets(veil.tree)


def _as_sets(tree) -> set:
    return {(cat, typ, frozenset(subs)) for cat, types in tree for typ, subs in types} | {
        (cat, None, frozenset()) for cat, _ in tree
    }
