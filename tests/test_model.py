"""The document data model: validation, MORF reading, derived views."""

from __future__ import annotations

import pytest

from harem_pipeline.errors import InputError
from harem_pipeline.model import (
    AltBlock,
    Collection,
    Document,
    Entity,
    Morf,
    read_entity_fields,
    split_vague,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("M,S", Morf("M", "S")),
        ("F,P", Morf("F", "P")),
        ("?,?", Morf("?", "?")),
        ("?,S", Morf("?", "S")),
    ],
)
def test_morf_parse_reads_every_first_harem_value(text: str, expected: Morf) -> None:
    assert Morf.parse(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize("text", ["X,Y", "S,M"])
def test_morf_parse_rejects_anything_else_with_location(text: str) -> None:
    with pytest.raises(InputError) as exc:
        Morf.parse(text, "cd.txt", line=7, docid="HAREM-1")
    message = str(exc.value)
    assert message.startswith("cd.txt, line 7, document HAREM-1: expected MORF=")
    assert f'found MORF="{text}"' in message
    assert "\n" not in message


def test_morf_constructor_rejects_invalid_values() -> None:
    with pytest.raises(ValueError):
        Morf("X", "S")


def test_split_vague() -> None:
    assert split_vague("PESSOA|ORGANIZACAO") == ("PESSOA", "ORGANIZACAO")
    assert split_vague("LOCAL") == ("LOCAL",)
    assert split_vague("") == ()
    assert split_vague(None) == ()


def test_entity_built_in_code_gets_second_harem_attributes() -> None:
    entity = Entity("e1", ("PESSOA", "LOCAL"), ("INDIVIDUAL",), (), Morf("M", "S"), "Ana", 4, 7)
    assert entity.tag == "EM"
    assert entity.attributes == (
        ("ID", "e1"),
        ("CATEG", "PESSOA|LOCAL"),
        ("TIPO", "INDIVIDUAL"),
        ("MORF", "M,S"),
    )
    assert entity.attribute("TIPO") == "INDIVIDUAL"
    assert entity.attribute("SUBTIPO") is None


def test_an_entity_pickles_as_itself_with_its_line() -> None:
    import dataclasses
    import pickle

    entity = Entity("e1", ("PESSOA",), ("INDIVIDUAL",), (), Morf("M", "S"), "Ana", 4, 7, line=9)
    again = pickle.loads(pickle.dumps(entity, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == entity
    assert dataclasses.astuple(again) == dataclasses.astuple(entity)
    assert again.line == 9


def test_first_harem_entity_reads_its_category_from_the_tag_name() -> None:
    attributes = (("TIPO", "CLASSE|OBJECTO"), ("MORF", "F,S"))
    fields = read_entity_fields("COISA|COISA", attributes)
    assert fields == (None, ("COISA", "COISA"), ("CLASSE", "OBJECTO"), (), Morf("F", "S"))
    entity = Entity(None, *fields[1:], "x", 0, 1, attributes, "COISA|COISA")
    assert entity.categories == ("COISA", "COISA")


def test_entity_fields_must_agree_with_its_attributes() -> None:
    with pytest.raises(ValueError, match="disagree"):
        Entity(
            "e1", ("PESSOA",), (), (), None, "Ana", 0, 3, (("ID", "e1"), ("CATEG", "LOCAL")), "EM"
        )


def test_entity_span_must_fit_its_text() -> None:
    with pytest.raises(ValueError, match="not ordered"):
        Entity(None, ("LOCAL",), (), (), None, "", 5, 4)
    with pytest.raises(ValueError, match="does not fit"):
        Entity(None, ("LOCAL",), (), (), None, "Lisboa", 0, 3)


def test_line_is_provenance_and_not_part_of_equality() -> None:
    a = Entity("e", ("LOCAL",), (), (), None, "Porto", 0, 5, line=3)
    b = Entity("e", ("LOCAL",), (), (), None, "Porto", 0, 5, line=9)
    assert a == b


def _alt_document() -> Document:
    # "Ele viu o Porto de Leixões." with ALT over "Porto de Leixões":
    # alternative 0 = one LOCAL, alternative 1 = "Porto" and "Leixões".
    text = "Ele viu o Porto de Leixões."
    whole = Entity("a0", ("LOCAL",), (), (), None, "Porto de Leixões", 10, 26)
    porto = Entity("a1", ("LOCAL",), (), (), None, "Porto", 10, 15)
    leixoes = Entity("a2", ("LOCAL",), (), (), None, "Leixões", 19, 26)
    block = AltBlock(10, 26, ((whole,), (porto, leixoes)), ("Porto de Leixões",) * 2)
    ele = Entity("p", ("PESSOA",), (), (), Morf("M", "S"), "Ele", 0, 3)
    return Document("D1", text, (ele,), (block,))


def test_document_all_entities_counts_alt_and_omitted() -> None:
    doc = _alt_document()
    assert [e.id for e in doc.all_entities] == ["p", "a0", "a1", "a2"]
    assert doc.is_omitted(0, 3) is False


def test_document_rejects_misplaced_entity() -> None:
    wrong = Entity(None, ("LOCAL",), (), (), None, "Porto", 0, 5)
    with pytest.raises(ValueError, match="not at its offsets"):
        Document("D", "Ele viu o Porto.", (wrong,))


def test_alt_block_needs_two_alternatives_and_matching_offsets() -> None:
    with pytest.raises(ValueError, match="at least two"):
        AltBlock(0, 1, ((),), ("x",))
    stray = Entity(None, ("LOCAL",), (), (), None, "y", 0, 1)
    with pytest.raises(ValueError, match="not at its offsets"):
        AltBlock(0, 1, ((), (stray,)), ("x", "x"))


def test_document_omitted_regions_and_membership() -> None:
    doc = Document("D", "abc def", omitted=((4, 7),))
    assert doc.is_omitted(4, 7) and doc.is_omitted(5, 6)
    assert not doc.is_omitted(3, 5)
    with pytest.raises(ValueError, match="outside"):
        Document("D", "abc", omitted=((2, 9),))


def test_collection_validates_format_and_finds_documents() -> None:
    doc = _alt_document()
    collection = Collection("x.xml", "second-harem", "utf-8", (doc,))
    assert collection.document("D1") is doc
    assert collection.document("nope") is None
    assert collection.docids == ("D1",)
    with pytest.raises(ValueError, match="format"):
        Collection("x.xml", "third-harem", "utf-8", ())  # type: ignore[arg-type]
