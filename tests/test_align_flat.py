"""The aligner's flat numbering: documents numbered from a flat list of items.

``document_items`` reads a document into running texts, entities of text
alone, ALT blocks and OMITIDO subtrees, without a node per text run and
entity; numbering those items (and collecting the CD's markable keys from
them) must give what the document's tree gives.  Checked on every shipped
Second HAREM document and on generated ones that mix the common shape with
everything past it.  The records written straight as text
(``pair_text``) must be the record lines formatted; and the cheaper token
counting and Java trim must be their plain definitions.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import format_lines
from harem_pipeline.formats.harem_xml import open_collection, parse_collection
from harem_pipeline.model import Document
from harem_pipeline.pipeline.align import _batched
from harem_pipeline.stages.align import DocumentPair, document_pairs, pair_lines, pair_text
from harem_pipeline.stages.align import numbering as align_numbering
from harem_pipeline.stages.align.items import (
    AltEntity,
    AltNode,
    EntityTag,
    _build_nodes,
    _nest_regions,
    document_items,
)
from harem_pipeline.stages.align.numbering import (
    NumberedAlt,
    _number_alt,
    collect_markable,
    number_entities,
)
from harem_pipeline.text.java import java_trim
from harem_pipeline.text.tokens import (
    _NOT_LATIN_UPPER,
    GAP,
    MAYBE_ODD,
    count_tokens,
    markable_tokens,
    new_counters,
    number_by_search,
    number_in_sequence,
    tokenize,
    upper_words_by_gap,
    word_tokens,
)
from tests.helpers.align_documents import SECOND_CD, SECOND_FILES, SECOND_RUN, bodies
from tests.helpers.paths import DATA
from tests.helpers.strategies import seeded

FIRST_CD = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"
FIRST_RUN = DATA / "campaign" / "sim-average.txt.gz"
EXAMPLE = DATA / "lampada2" / "exemplo1"
OMITIDO_P = DATA / "reference" / "omitido-p"


def _keys_of(nodes: object) -> list[str]:
    keys: dict[str, None] = {}
    collect_markable(nodes, keys)  # type: ignore[arg-type]
    return list(keys)


def _numbered(nodes: object, keys: list[str]) -> object:
    return number_entities(nodes, keys, True)  # type: ignore[arg-type]


def _document(body: str) -> Document | None:
    """The document ``body`` is the content of, or None when the reader refuses it."""
    try:
        return parse_collection(f'<DOC DOCID="d">{body}</DOC>', "x.xml", "utf-8").documents[0]
    except InputError:
        return None


def _build_document_tree(doc: Document, path: str, xml: bool) -> object:
    """The document's content as the original's XML tree: text nodes and elements."""
    return _build_nodes(doc, _nest_regions(doc, path), 0, len(doc.text), False, xml)


def _items_and_tree(doc: Document) -> tuple[object, object] | None:
    """The document's items and its tree, or None when both refuse its annotation."""
    try:
        tree = _build_document_tree(doc, "x.xml", True)
    except InputError as error:
        with pytest.raises(InputError) as caught:
            document_items(doc, "x.xml", True)
        assert str(caught.value) == str(error)
        return None
    return document_items(doc, "x.xml", True), tree


def _assert_items_number_as_the_tree(doc: Document | None, extra: list[str]) -> None:
    found = None if doc is None else _items_and_tree(doc)
    if found is None:
        return
    items, tree = found
    keys = _keys_of(tree)
    assert _keys_of(items) == keys
    for chosen in (keys, [*keys, *extra], extra):
        assert _numbered(items, chosen) == _numbered(tree, chosen)


@pytest.mark.parametrize("path", SECOND_FILES, ids=lambda p: p.name)
def test_shipped_documents_number_from_items_as_from_their_tree(path: Path) -> None:
    for doc in open_collection(path).documents:
        # keys of the document itself, and some its CD might have (as a run is numbered)
        extra = markable_tokens(doc.text[::7])[:50]
        _assert_items_number_as_the_tree(doc, extra)


@settings(derandomize=True, deadline=None, max_examples=400)
@given(bodies(6), st.lists(st.sampled_from(["A", "Ç", "AÇ"])))
def test_generated_documents_number_from_items_as_from_their_tree(
    body: str, extra: list[str]
) -> None:
    _assert_items_number_as_the_tree(_document(body), extra)


def test_an_omitido_in_a_paragraph_and_a_paragraph_in_an_omitido() -> None:
    bodies = [
        '<P>a <OMITIDO>Porto <EM ID="1">Porto</EM> b</OMITIDO> Porto</P><EM ID="2">Porto</EM>',
        '<OMITIDO><P>Porto <EM ID="1">Porto</EM></P></OMITIDO> <EM ID="2">Porto</EM>',
        '<P>x <ALT><EM ID="1">Porto</EM>|Porto</ALT> Porto <EM ID="2">Porto</EM></P>',
        '<P>x</P><P></P><EM ID="2">Porto</EM>',
        '<EM ID="1" CATEG="A&amp;B">Porto</EM> <EM ID="2">Porto &amp; Braga</EM>',
        '<P>a<P>Porto</P> <EM ID="1">Porto</EM></P>',  # a paragraph in a paragraph
        '<P></P>x <EM ID="1">Porto</EM><EM ID="2"></EM>Porto',  # empty elements
        '<EM ID="1">Porto</EM><EM ID="2"/><ALT>|</ALT> <P><EM ID="3">Porto</EM></P>',
    ]
    for body in bodies:
        _assert_items_number_as_the_tree(_document(body), [])


_TRICKY = "aZ09 -,.|ãÇ²½Ⅻⅰⓐ\u0345\u0301_ß\n"


@settings(derandomize=True, deadline=None, max_examples=300)
@given(st.text(alphabet=_TRICKY, max_size=40), st.text(alphabet=_TRICKY, max_size=12))
def test_counting_advances_the_counters_as_numbering_does(text: str, entity: str) -> None:
    keys = [*markable_tokens(entity), *(c.upper() for c in entity if c in "ⅰⓐ\u0345")]
    counted, numbered = new_counters(keys), new_counters(keys)
    count_tokens(text, counted)
    number_by_search(text, numbered)
    assert counted == numbered


def _java_trim_by_character(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


@settings(derandomize=True, max_examples=300)
@given(st.text(alphabet=" \t\n\r\x00\x1f\x20\x21a\u00a0\u2003é"))
def test_java_trim_strips_what_java_strips(text: str) -> None:
    assert java_trim(text) == _java_trim_by_character(text)


# --- records written as text: what formatting the record lines gives -------------

_PAIRED_FILES = [
    (SECOND_CD, SECOND_RUN),
    (SECOND_CD, SECOND_CD),
    (FIRST_CD, FIRST_RUN),
    (EXAMPLE / "CDexemplo.xml", EXAMPLE / "ficheiro.xml"),
    (OMITIDO_P / "cd.xml", OMITIDO_P / "run.xml"),
    (DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz", SECOND_RUN),  # no shared DOCID
]


@pytest.mark.parametrize(
    ("cd", "run"), _PAIRED_FILES, ids=[f"{cd.name}-{run.name}" for cd, run in _PAIRED_FILES]
)
def test_pair_text_is_the_pair_lines_formatted(cd: Path, run: Path) -> None:
    pairs = list(document_pairs(open_collection(cd), open_collection(run), []))
    for pair in pairs:
        assert pair_text(pair) == format_lines(pair_lines(pair))


@settings(derandomize=True, deadline=None, max_examples=200)
@given(bodies(5), bodies(5))
def test_pair_text_of_generated_documents(cd_body: str, run_body: str) -> None:
    cd, run = _document(cd_body), _document(run_body)
    if cd is None or run is None:
        return
    for pair in (DocumentPair(cd, run, True, "cd", "run"), DocumentPair(cd, None, True, "cd", "r")):
        try:
            expected = format_lines(pair_lines(pair))
        except InputError as error:
            with pytest.raises(type(error)):
                pair_text(pair)
            continue
        assert pair_text(pair) == expected


# --- running text counted in one pass: what counting it text by text gives --------

_LATIN = "aZç09 -,.|ÇãÿßµªºÀ²½_\n\t\x00"


@settings(derandomize=True, max_examples=400)
@given(st.lists(st.text(alphabet=_LATIN + "Ⅻⓐ\u0345Ω", max_size=15), max_size=5))
def test_upper_words_by_gap_are_the_word_tokens_upper_cased(pieces: list[str]) -> None:
    expected: list[str] = []
    for index, piece in enumerate(pieces):
        if index:
            expected.append(GAP)
        expected += [token.upper() for token in word_tokens(piece)]
    found = upper_words_by_gap(GAP.join(pieces))
    if any(c in "".join(pieces) for c in "ÿßµⅫⓐ\u0345Ω"):
        assert found is None
    else:
        assert found == expected


def _numbered_text_by_text(items: object, keys: list[str]) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(align_numbering, "_number_in_bulk", lambda *args: False)
        return number_entities(items, keys, True)  # type: ignore[arg-type]


def _assert_bulk_numbering_is_text_by_text(doc: Document | None, extra: list[str]) -> None:
    found = None if doc is None else _items_and_tree(doc)
    if found is None:
        return
    for items in found:
        keys = _keys_of(items)
        for chosen in (keys, [*keys, *extra]):
            assert number_entities(items, chosen, True) == _numbered_text_by_text(items, chosen)


@pytest.mark.parametrize("path", SECOND_FILES[:4], ids=lambda p: p.name)
def test_shipped_documents_number_in_bulk_as_text_by_text(path: Path) -> None:
    for doc in open_collection(path).documents:
        _assert_bulk_numbering_is_text_by_text(doc, markable_tokens(doc.text[::5])[:80])


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    bodies(6),
    st.sampled_from(["a", "ß", "ÿ", "µ", "Ⅻ", "\x01", "²", "1"]),
    st.lists(st.sampled_from(["A", "Ç", "AÇ", "SS", "Ÿ", "1"])),
)
def test_generated_documents_number_in_bulk_as_text_by_text(
    body: str, odd: str, extra: list[str]
) -> None:
    body = body.replace("a", odd, 1)
    _assert_bulk_numbering_is_text_by_text(_document(body), extra)


# --- ALT blocks: numbered text read as whole texts, not token by token -------------


def _number_in_sequence_by_tokens(text: str, counters: dict[str, int]) -> tuple[str, list]:
    """``number_in_sequence`` as the original steps through ``tokenize``."""
    pieces, marks = [], []
    for token in tokenize(text):
        count = counters.get(token.upper()) if token else None
        if count is None:
            pieces.append(token)
            continue
        counters[token.upper()] = count + 1
        marks.append((token, token.upper(), count + 1))
        pieces.append(f"<{count + 1}>{token}</{count + 1}>")
    return "".join(pieces), marks


@settings(derandomize=True, deadline=None, max_examples=400)
@given(st.text(alphabet=_TRICKY, max_size=40), st.text(alphabet=_TRICKY, max_size=12))
def test_number_in_sequence_steps_through_the_tokens(text: str, entity: str) -> None:
    keys = [*markable_tokens(entity), *(c.upper() for c in entity if c in "ⅰⓐ\u0345")]
    fast, slow = new_counters(keys), new_counters(keys)
    marked, marks = number_in_sequence(text, fast)
    assert (marked, list(marks)) == (_number_in_sequence_by_tokens(text, slow))
    assert fast == slow


def _alt_by_tokens(node: AltNode, counters: dict[str, int]) -> object:
    """``_number_alt`` with each text's tokens an item of their own (the original's reading)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(align_numbering, "_alt_text_items", lambda marked: tokenize(marked))
        return _number_alt(node, counters, True)


def _shown(group: object) -> object:
    if group is None:
        return None
    assert isinstance(group, NumberedAlt)
    named = [[item for item in alt if not isinstance(item, str)] for alt in group.alternatives]
    return group.ident, group.plain_string(), group.entities, group.marks, named


_ALT_TEXT = st.text(alphabet="aA ç|\n\t.,1ⅰ", max_size=8)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    st.lists(st.lists(st.one_of(_ALT_TEXT, st.just("<EM>")), max_size=4), min_size=1, max_size=3),
    st.lists(st.sampled_from(["A", "AA", "Ç", "1", "Ⅰ"])),
)
def test_alt_texts_read_as_their_tokens_read(
    alternatives: list[list[str]], keys: list[str]
) -> None:
    content: list[object] = []
    for index, alternative in enumerate(alternatives):
        if index:
            content.append("|")
        for part in alternative:
            if part == "<EM>":
                entity = EntityTag("EM", (("ID", str(len(content))),))
                content.append(AltEntity(entity, "a A Ç 1"))
            else:
                content.append(part)
    node = AltNode(tuple(content), False)  # type: ignore[arg-type]
    mine, theirs = new_counters(keys), new_counters(keys)
    assert _shown(_number_alt(node, mine, True)) == _shown(_alt_by_tokens(node, theirs))
    assert mine == theirs


# Entity tags near the plain shape: each attribute's blank, name, quotes and
# value, and the tag's end, each the plain one or, now and then, a near miss
# (each part: its plain choices, its near misses).
_ATTRIBUTE_PARTS = (
    ([" "], ["  ", "\t", "\n", ""]),
    (["ID", "CATEG", "FACS_ALVO", "tipo", "X1", "É"], ["A/B", "A'", "", "A\tB", "A B"]),
    (['="'], ["='", ' ="', '= "']),
    (["v", "", "a b", "a'b", "a/b", "é", "a=b"], ["a\tb", "a\nb", "a\rb", 'a"b']),
    (['"'], ["'"]),
)
_TAG_END = ([">"], [" >", "/>", "\t>"])
_WORDS = ["x", "", " a "]


def _random_entity_tag(rng: random.Random) -> str:
    """An entity tag whose every part is the plain one two times in three."""

    def part(parts: tuple[list[str], list[str]]) -> str:
        plain, misses = parts
        return rng.choice(plain if rng.random() < 2 / 3 else misses)

    attributes = ("".join(map(part, _ATTRIBUTE_PARTS)) for _ in range(rng.randint(0, 4)))
    return "<EM" + "".join(attributes) + part(_TAG_END)


def _random_entity_tags(rng: random.Random) -> list[tuple[str, str]]:
    """One to three entity tags, each with the word it holds."""
    return [(_random_entity_tag(rng), rng.choice(_WORDS)) for _ in range(rng.randint(1, 3))]


@settings(derandomize=True, deadline=None, max_examples=300)
@given(seeded(_random_entity_tags))
def test_entity_tags_of_every_shape_read_as_items_as_in_the_tree(tags: list) -> None:
    body = "".join(f"{tag}{word}</EM> " for tag, word in tags)
    _assert_items_number_as_the_tree(_document(body), ["A"])


def test_the_odd_character_classes_are_what_they_say() -> None:
    # written as complements (a class up to U+10FFFF is slow to compile at every start)
    # (each class matches one character: its matches in the string of every character,
    # found in one pass, are the characters it matches)
    everything = "".join(map(chr, range(0x110000)))
    past_latin = everything[0x100:]
    assert "".join(MAYBE_ODD.findall(everything)) == "²³¹¼½¾" + past_latin
    assert sorted(_NOT_LATIN_UPPER.decode("latin-1")) == sorted("µßÿ")
    # the Latin-1 letters whose upper case is no single Latin-1 letter
    latin = [chr(code) for code in range(256)]
    cased_away = {
        c for c in latin if c.isalpha() and not ("\xff" >= c.upper() and len(c.upper()) == 1)
    }
    assert cased_away == set("ßÿµ")


def _reading(count: int, failing_at: int | None):
    for index in range(count):
        if index == failing_at:
            raise InputError("run.xml", "a document", "trouble")
        yield index


@pytest.mark.parametrize("failing_at", [None, 0, 3, 4, 5, 9])
def test_pairs_go_to_the_workers_in_batches_and_a_reading_error_after_them(
    failing_at: int | None,
) -> None:
    batches = _batched(_reading(10, failing_at), 4)  # type: ignore[arg-type]
    read: list[int] = []
    if failing_at is None:
        assert list(batches) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
        return
    with pytest.raises(InputError):
        for batch in batches:
            assert len(batch) <= 4
            read += batch
    assert read == list(range(failing_at))


def test_batches_double_up_to_the_largest() -> None:
    batches = _batched(_reading(40, None), 3, 10)  # type: ignore[arg-type]
    assert [len(batch) for batch in batches] == [3, 6, 10, 10, 10, 1]
    assert [len(b) for b in _batched(_reading(4, None), 3, 10)] == [3, 1]  # type: ignore[arg-type]
    assert sum(_batched(_reading(40, None), 3, 10), []) == list(range(40))  # type: ignore[arg-type]
