"""AlinhEM: reference outputs of the official aligner, First HAREM cases, bad input."""

from __future__ import annotations

import difflib
import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    AltClose,
    AltOpen,
    DocumentLine,
    Record,
    format_line,
)
from harem_pipeline.formats.harem_xml import parse_collection, read_collection
from harem_pipeline.model import SECOND_HAREM, Collection, Document, Entity
from harem_pipeline.stages.align import _PENDING_BUDGET, align_collections
from harem_pipeline.stages.align.items import build_alternatives
from harem_pipeline.stages.align.records import body_items
from harem_pipeline.text.java import java_hash_order, java_string_hash
from harem_pipeline.text.tokens import (
    _CASED_SEPARATOR,
    is_token_boundary,
    markable_tokens,
    new_counters,
    number_by_search,
    number_in_sequence,
    tokenize,
    word_tokens,
)
from tests.helpers.shipped import shipped_collection

DATA = Path(__file__).resolve().parent.parent / "data"
REFERENCE = DATA / "reference"

# (CD, run, reference .alinhado, reference stderr of the aligner)
REFERENCE_CASES = {
    "exemplo0": (
        "lampada2/exemplo0/cd.xml",
        "lampada2/exemplo0/participacao.xml",
        "exemplo0/total_muc.alinhado.gz",
        "exemplo0/total_muc.aligner.stderr.gz",
    ),
    "exemplo1": (
        "lampada2/exemplo1/CDexemplo.xml",
        "lampada2/exemplo1/ficheiro.xml",
        "exemplo1/total_harem.alinhado.gz",
        "exemplo1/total_harem.aligner.stderr.gz",
    ),
    "exemplo1-muc": (
        "lampada2/exemplo1/CDexemplo.xml",
        "lampada2/exemplo1/ficheiro.xml",
        "exemplo1/total_muc.alinhado.gz",
        "exemplo1/total_muc.aligner.stderr.gz",
    ),
    "brackets": (  # entity texts with [ ] and '' (data/reference/brackets/README.md)
        "reference/brackets/cd.xml",
        "reference/brackets/run.xml",
        "brackets/total_harem.alinhado.gz",
        "brackets/total_harem.aligner.stderr.gz",
    ),
    "bracket-edges": (  # a system text trimmed once its brackets are gone (see its README)
        "reference/bracket-edges/cd.xml",
        "reference/bracket-edges/run.xml",
        "bracket-edges/total_harem.alinhado.gz",
        "bracket-edges/total_harem.aligner.stderr.gz",
    ),
    "gabriel": (
        "second-harem/SegundoHaremReRelEM_t1.xml.gz",
        "second-harem/ParticipacaoSegundoHaremReRelEM_t1.xml.gz",
        "gabriel/run.alinhado.gz",
        "gabriel/run.aligner.stderr.gz",
    ),
}


def _reference_lines(path: Path) -> list[str]:
    """Lines of a reference file (ISO-8859-1, as the Java tools write)."""
    text = gzip.decompress(path.read_bytes()).decode("iso8859-1")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _without_file_names(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("#")]


def _assert_same_lines(expected: list[str], found: list[str], what: str) -> None:
    if expected != found:
        diff = difflib.unified_diff(expected, found, "reference", "ours", lineterm="", n=2)
        pytest.fail(f"{what} differs from the reference:\n" + "\n".join(list(diff)[:80]))


@pytest.mark.parametrize("case", sorted(REFERENCE_CASES))
def test_reference_alignment_line_for_line(case: str) -> None:
    cd_path, run_path, reference, stderr = REFERENCE_CASES[case]
    cd, run = shipped_collection(DATA / cd_path), shipped_collection(DATA / run_path)
    result = align_collections(cd, run)
    ours = [format_line(line) for line in result.lines]
    _assert_same_lines(
        _without_file_names(_reference_lines(REFERENCE / reference)),
        _without_file_names(ours),
        f"{case} .alinhado",
    )
    _assert_same_lines(_reference_lines(REFERENCE / stderr), list(result.warnings), "warnings")


def test_cli_writes_the_reference_bytes_and_warnings(tmp_path: Path, capsys) -> None:
    # exemplo0's file names match the Java header lines, so even those are equal:
    # the whole file is byte for byte the reference (ISO-8859-1, LF).
    out = tmp_path / "total_muc.alinhado"
    status = main(
        [
            "align",
            "--cd",
            str(DATA / "lampada2/exemplo0/cd.xml"),
            "--run",
            str(DATA / "lampada2/exemplo0/participacao.xml"),
            "-o",
            str(out),
        ]
    )
    assert status == 0
    reference = gzip.decompress((REFERENCE / "exemplo0/total_muc.alinhado.gz").read_bytes())
    assert out.read_bytes() == reference
    assert capsys.readouterr().err == "NÃo consegui encontrar o documento na CD: foracd1\n"


def test_cli_default_output_is_run_dot_alinhado(tmp_path: Path) -> None:
    run = tmp_path / "participacao.xml"
    run.write_bytes((DATA / "lampada2/exemplo0/participacao.xml").read_bytes())
    assert main(["align", "--cd", str(DATA / "lampada2/exemplo0/cd.xml"), "--run", str(run)]) == 0
    assert (
        (tmp_path / "participacao.xml.alinhado")
        .read_bytes()
        .startswith(b"# participacao.xml\n# cd.xml\nDOC teste1\n")
    )


# ---------------------------------------------------------------------------
# Tokens and numbering


def test_tokenize_cuts_digits_one_by_one_and_at_letter_digit_boundaries() -> None:
    assert tokenize("1999") == ["1", "9", "9", "9"]
    assert tokenize("A4-b") == ["A", "4", "-", "b"]
    # an empty token wherever a boundary has no word before it (the original's list)
    assert tokenize(", ") == ["", ",", "", " "]
    # ² is not a decimal digit: a separator, as Java's isLetterOrDigit says
    assert tokenize("m²") == ["m", "²"]


@settings(derandomize=True, deadline=None)
@given(st.text(alphabet="aZ09 -,.|ãÇ²\n", max_size=40))
def test_tokenize_keeps_every_character(text: str) -> None:
    assert "".join(tokenize(text)) == text


def _tokenize_by_character(text: str) -> list[str]:
    """The token rule applied character by character, as the original does."""
    tokens: list[str] = []
    current: list[str] = []
    previous = "\0"
    for char in text:
        if is_token_boundary(previous, char):
            tokens.append("".join(current))
            if char.isalpha() or char.isdecimal():
                current = [char]
            else:
                tokens.append(char)
                current = []
        else:
            current.append(char)
        previous = char
    if current:
        tokens.append("".join(current))
    return tokens


def _number_by_search_by_character(text: str, counters: dict[str, int]) -> tuple[str, list]:
    """``number_by_search`` over every token of the character-by-character rule."""
    pieces, marks, cursor = [], [], 0
    for token in _tokenize_by_character(text):
        count = counters.get(token.upper()) if token else None
        if count is None:
            continue
        counters[token.upper()] = count + 1
        found = text.find(token, cursor)
        if found >= 0:
            marks.append((token, count + 1))
            pieces += [text[cursor:found], f"<{count + 1}>{token}</{count + 1}>"]
            cursor = found + len(token)
    return "".join(pieces) + text[cursor:], marks


_TRICKY = "aZ09 -,.|ãÇ²½Ⅻⅰⓐ\u0345\u0301_ß\n"


@settings(derandomize=True, deadline=None, max_examples=400)
@given(st.text(alphabet=_TRICKY, max_size=40), st.text(alphabet=_TRICKY, max_size=12))
def test_fast_tokens_equal_the_character_rule(text: str, entity: str) -> None:
    assert tokenize(text) == _tokenize_by_character(text)
    words = [t for t in _tokenize_by_character(text) if t[:1].isalpha() or t[:1].isdecimal()]
    assert word_tokens(text) == words
    keys = markable_tokens(entity) + [t.upper() for t in _tokenize_by_character(entity) if t]
    keys = [k for k in keys if k in markable_tokens(entity) or any(c in k for c in "ⅰⓐ\u0345")]
    marked, marks = number_by_search(text, new_counters(keys))
    slow = _number_by_search_by_character(text, new_counters(keys))
    assert (marked, [(written, count) for written, _, count in marks]) == slow


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.text(alphabet="aAçÇßµÿǅ", min_size=1, max_size=6), st.lists(st.sampled_from("aAçÇßµÿǅ")))
def test_one_word_of_letters_numbers_as_the_character_rule(word: str, letters: list) -> None:
    # the one-word shortcut (a third of the entities) against the rule
    keys = [word.upper(), *"".join(letters).upper().split()] if letters else [word.upper()]
    for chosen in (keys, keys[1:]):
        counters = new_counters(chosen)
        marked, marks = number_by_search(word, counters)
        again = number_by_search(word, counters)
        slow_counters = new_counters(chosen)
        slow = _number_by_search_by_character(word, slow_counters)
        assert (marked, [(w, c) for w, _, c in marks]) == slow
        slow_again = _number_by_search_by_character(word, slow_counters)
        assert (again[0], [(w, c) for w, _, c in again[1]]) == slow_again
        assert all(key == written.upper() for written, key, _ in (*marks, *again[1]))
        assert counters == slow_counters


def test_cased_separators_are_all_of_unicode() -> None:
    # The fast numbering relies on these facts of the Unicode tables in use.
    everything = [chr(code) for code in range(0x110000)]
    cased = [c for c in everything if not (c.isalpha() or c.isdecimal()) and c.upper() != c]
    assert cased == [c for c in everything if _CASED_SEPARATOR.fullmatch(c)]
    # no word token upper-cases to a single separator: a key never equals one
    assert not [
        c
        for c in everything
        if (c.isalpha() or c.isdecimal())
        and len(c.upper()) == 1
        and not (c.upper().isalpha() or c.upper().isdecimal())
    ]


def test_markable_tokens_test_stopwords_as_written() -> None:
    # 'de' and 'e' are stopwords; 'DE' and 'E' are not (the official list's gaps).
    assert markable_tokens("Faculdade de Letras DE Lisboa e E") == [
        "FACULDADE",
        "LETRAS",
        "DE",
        "LISBOA",
        "E",
    ]
    # 'Por' is missing from the official list, 'não' is never matched there
    assert markable_tokens("Por por POR não") == ["POR", "NÃO"]


def test_numbering_outside_alt_wraps_the_first_match_even_inside_a_word() -> None:
    marked, marks = number_by_search("Portugalia e Portugal", new_counters(["PORTUGAL"]))
    assert marked == "<1>Portugal</1>ia e Portugal"
    assert marks == (("Portugal", "PORTUGAL", 1),)
    sequential, _ = number_in_sequence("Portugalia e Portugal", new_counters(["PORTUGAL"]))
    assert sequential == "Portugalia e <1>Portugal</1>"


def test_numbering_is_case_insensitive() -> None:
    counters = new_counters(["UC"])
    _, marks = number_by_search("UC, uc e Uc", counters)
    assert [(written, count) for written, _, count in marks] == [("UC", 1), ("uc", 2), ("Uc", 3)]
    assert counters == {"UC": 3}


def test_java_string_hash_and_hash_map_order() -> None:
    assert java_string_hash("hello") == 99162322  # Java: "hello".hashCode()
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    # 16 buckets: "1" (49) → 1, "3" (51) → 3, "N" (78) → 14; colliding keys keep insertion order
    assert java_hash_order(["N", "3", "1"]) == ["1", "3", "N"]
    assert java_hash_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert java_hash_order(["Aa", "BB"]) == ["Aa", "BB"]


def test_alt_text_with_two_bars_copies_its_first_piece() -> None:
    # The original groups "a | b | c" as a / a / c (its loop always takes piece 0).
    assert build_alternatives(["a | b | c"]) == [["a"], ["a"], ["c"]]
    assert build_alternatives(["x", "|", "y"]) == [["x"], ["y"]]
    # a run ending in "|" closes the alternative and opens an empty one
    assert build_alternatives(["x", " |"]) == [["x"], []]


# ---------------------------------------------------------------------------
# First HAREM (2005 format)


@pytest.fixture(scope="module")
def first_harem() -> Collection:
    return shipped_collection(DATA / "first-harem/ColeccaoDouradaHAREM.txt")


def test_first_harem_cd_against_itself(first_harem: Collection) -> None:
    result = align_collections(first_harem, first_harem)
    assert result.warnings == ()
    documents = [line for line in result.lines if isinstance(line, DocumentLine)]
    assert len(documents) == 129
    assert format_line(documents[0]) == "HAREM-871-07800 PT Web"
    depth = 0
    outside = 0
    for line in result.lines:
        if isinstance(line, AltOpen) and line.n is None:
            depth += 1
        elif isinstance(line, AltClose) and line.n is None:
            depth -= 1
        elif isinstance(line, Record):
            assert line.system is not None, format_line(line)
            if depth == 0:
                # outside ALT blocks: exactly one-to-one, the entity with itself
                outside += 1
                assert line.system == (line.gold,), format_line(line)
            elif not line.gold.is_spurious:
                # inside a block every alternative's entity finds itself among the block's
                assert line.gold in line.system, format_line(line)
    # 5,132 entity tags (data/README.md): 4,980 plain, 142 in ALT blocks, 10 in OMITIDO
    alt_entities = sum(
        len(alt)
        for doc in first_harem.documents
        for block in doc.alt_blocks
        for alt in block.alternatives
    )
    plain = sum(len(doc.entities) for doc in first_harem.documents)
    assert outside == plain
    assert plain + alt_entities == 5122
    assert plain == 4980
    written = {format_line(line) for line in result.lines}
    assert (
        '<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Rússia</LOCAL> ---> '
        '[<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Rússia</LOCAL>]'
    ) in written


def _first_harem_document(docid: str) -> str:
    text = (DATA / "first-harem/ColeccaoDouradaHAREM.txt").read_bytes().decode("iso8859-1")
    at = text.index(f"<DOCID>{docid}</DOCID>")
    return text[text.rindex("<DOC>", 0, at) : text.index("</DOC>", at) + len("</DOC>")]


def test_first_harem_hand_edited_run() -> None:
    cd_text = _first_harem_document("HAREM-464-07791")
    removed = '<LOCAL TIPO="ADMINISTRATIVO" MORF="?,S">Campinas</LOCAL>'
    shortened = '<PESSOA TIPO="INDIVIDUAL" MORF="M,S">Wagner Silva</PESSOA>'
    run_text = (
        cd_text.replace(removed, "Campinas")
        .replace(shortened, '<PESSOA TIPO="INDIVIDUAL" MORF="M,S">Wagner</PESSOA> Silva')
        .replace("Dois torcedores", '<VALOR TIPO="QUANTIDADE">Dois</VALOR> torcedores')
    )
    assert run_text.count("<VALOR") == cd_text.count("<VALOR") + 1
    cd = parse_collection(cd_text, "cd.txt", "iso8859-1")
    run = parse_collection(run_text, "run.txt", "iso8859-1")
    lines = [format_line(line) for line in align_collections(cd, run).lines]
    q = 'TIPO="QUANTIDADE"'
    rio = '<LOCAL TIPO="ADMINISTRATIVO" MORF="M,S">Rio</LOCAL>'
    same = [
        f"<VALOR {q}>54</VALOR>",
        f"<VALOR {q}>140</VALOR>",
        rio,
        f"<VALOR {q}>30</VALOR>",
        '<ORGANIZACAO TIPO="INSTITUICAO" MORF="M,S">Guarani</ORGANIZACAO>',
        '<ORGANIZACAO TIPO="INSTITUICAO" MORF="M,S">Corinthians</ORGANIZACAO>',
    ]
    expected = ["# run.txt", "# cd.txt", "HAREM-464-07791 BR Jornalístico"]
    expected += [f"{tag} ---> [{tag}]" for tag in same]
    expected += [f"{removed} ---> [null]"]  # the removed entity is missing
    expected += [
        '<PESSOA TIPO="INDIVIDUAL" MORF="?,S">M.F.B.</PESSOA> ---> '
        '[<PESSOA TIPO="INDIVIDUAL" MORF="?,S">M.F.B.</PESSOA>]',
        f"<VALOR {q}>16</VALOR> ---> [<VALOR {q}>16</VALOR>]",
        # the shortened entity still shares "Wagner": aligned, to be judged partial
        f"{shortened} ---> [" + '<PESSOA TIPO="INDIVIDUAL" MORF="M,S">Wagner</PESSOA>]',
        f"<VALOR {q}>23</VALOR> ---> [<VALOR {q}>23</VALOR>]",
        f"{rio} ---> [{rio}]",
        # the added entity: no CD entity holds "Dois", so it is spurious (after the CD records)
        f"<ESPURIO>Dois</ESPURIO> ---> [<VALOR {q}>Dois</VALOR>]",
        "",
        "",
    ]
    assert lines == expected


# ---------------------------------------------------------------------------
# Bad input and documents that do not pair up

_CD = """<?xml version="1.0" encoding="ISO-8859-1"?>
<colHAREM versao="teste">
<DOC DOCID="d1"><P>O <EM ID="c1" CATEG="LOCAL">Porto</EM> e <EM ID="c2" CATEG="PESSOA">Rui Costa</EM> em 1999.</P></DOC>
<DOC DOCID="d2"><P>A <EM ID="c3" CATEG="ORGANIZACAO">ONU</EM> reuniu.</P></DOC>
</colHAREM>
"""  # noqa: E501

_RUN = """<?xml version="1.0" encoding="ISO-8859-1"?>
<colHAREM versao="teste">
<DOC DOCID="dx"><P>Fora da <EM ID="x1" CATEG="OUTRO">CD</EM>.</P></DOC>
<DOC DOCID="d1"><P>O <EM ID="r1" CATEG="LOCAL">Porto</EM> e <EM ID="r2" CATEG="PESSOA">Rui</EM> Costa em 1999.</P></DOC>
</colHAREM>
"""  # noqa: E501


def _second(text: str, path: str) -> Collection:
    return parse_collection(text, path, "iso8859-1")


def test_documents_missing_on_either_side() -> None:
    result = align_collections(_second(_CD, "cd.xml"), _second(_RUN, "run.xml"))
    assert [format_line(line) for line in result.lines] == [
        "# run.xml",
        "# cd.xml",
        "DOC d1",
        '<EM ID="c1" CATEG="LOCAL">Porto</EM> ---> [<EM ID="r1" CATEG="LOCAL">Porto</EM>]',
        '<EM ID="c2" CATEG="PESSOA">Rui Costa</EM> ---> [<EM ID="r2" CATEG="PESSOA">Rui</EM>]',
        "EOD",
        "",
        "",
        # d2 is absent from the run: every entity of it is missing
        "DOC d2",
        '<EM ID="c3" CATEG="ORGANIZACAO">ONU</EM> ---> [null]',
        "EOD",
        "",
        "",
    ]
    assert result.warnings == (
        "NÃo consegui encontrar o documento na CD: dx",
        "A submissÃo nÃo continha documentos da CD: ",
        "d2",
    )


def test_text_differing_between_cd_and_run_asks_for_manual_check() -> None:
    cd = _second(
        '<colHAREM><DOC DOCID="d1"><P>A <EM ID="c1" CATEG="ORGANIZACAO">ONU</EM> reuniu. '
        'A <EM ID="c2" CATEG="ORGANIZACAO">ONU</EM> decidiu.</P></DOC></colHAREM>',
        "cd.xml",
    )
    # the run's text has one "ONU" more: occurrence numbers no longer meet
    run = _second(
        '<colHAREM><DOC DOCID="d1"><P>A ONU e a ONU reuniu. '
        'A <EM ID="r1" CATEG="ORGANIZACAO">ONU</EM> decidiu.</P></DOC></colHAREM>',
        "run.xml",
    )
    lines = [format_line(line) for line in align_collections(cd, run).lines]
    check = "Os átomos seguintes nÃo foram correctamente identificados: [ONU]. "
    verify = "Verifique o seguinte alinhamento: "
    c1 = '<EM ID="c1" CATEG="ORGANIZACAO">ONU</EM>'
    c2 = '<EM ID="c2" CATEG="ORGANIZACAO">ONU</EM>'
    assert lines[2:] == [
        "DOC d1",
        f"<VERIFICACAO_MANUAL> {check}{verify}{c1} ---> null "
        f"{check}{verify}{c2} ---> null </VERIFICACAO_MANUAL>",
        f"{c1} ---> [null]",
        f"{c2} ---> [null]",
        '<EM CATEG="ESPURIO">ONU</EM> ---> [<EM ID="r1" CATEG="ORGANIZACAO">ONU</EM>]',
        "EOD",
        "",
        "",
    ]


def test_omitted_text_is_numbered_but_never_written() -> None:
    cd = _second(
        '<colHAREM><DOC DOCID="d1"><P><OMITIDO>O <EM ID="c0" CATEG="LOCAL">Porto</EM>.</OMITIDO>'
        ' O <EM ID="c1" CATEG="LOCAL">Porto</EM>.</P></DOC></colHAREM>',
        "cd.xml",
    )
    run = _second(
        '<colHAREM><DOC DOCID="d1"><P><OMITIDO>O <EM ID="r0" CATEG="LOCAL">Porto</EM>.</OMITIDO>'
        ' O <EM ID="r1" CATEG="LOCAL">Porto</EM>.</P></DOC></colHAREM>',
        "run.xml",
    )
    lines = [format_line(line) for line in align_collections(cd, run).lines]
    # Porto#1 is inside OMITIDO on both sides; only Porto#2 is written
    assert lines[2:] == [
        "DOC d1",
        '<EM ID="c1" CATEG="LOCAL">Porto</EM> ---> [<EM ID="r1" CATEG="LOCAL">Porto</EM>]',
        "EOD",
        "",
        "",
    ]


def _entity(eid: str, text: str, start: int) -> Entity:
    return Entity(eid, ("PESSOA",), (), (), None, text, start, start + len(text))


@pytest.mark.parametrize(
    ("second", "word"),
    [(_entity("r2", "Costa", 6), "inside"), (_entity("r2", "Costa Lima", 6), "overlapping")],
)
def test_nested_or_overlapping_run_entities_are_refused(second: Entity, word: str) -> None:
    text = "O Rui Costa Lima."
    cd = Collection("cd.xml", SECOND_HAREM, "utf-8", (Document("d1", text),))
    run_doc = Document("d1", text, entities=(_entity("r1", "Rui Costa", 2), second))
    run = Collection("run.xml", SECOND_HAREM, "utf-8", (run_doc,))
    with pytest.raises(InputError) as caught:
        align_collections(cd, run)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("run.xml, document d1: expected entities that ")
    assert f"{word} " in message and 'ID="r2"' in message and 'ID="r1"' in message


def test_cli_refuses_nested_run_entities(tmp_path: Path, capsys) -> None:
    cd = tmp_path / "cd.xml"
    cd.write_text(_CD, encoding="iso8859-1")
    run = tmp_path / "run.xml"
    run.write_text(
        '<colHAREM><DOC DOCID="d1"><P>O <EM ID="r1" CATEG="PESSOA">Rui '
        '<EM ID="r2" CATEG="PESSOA">Costa</EM></EM>.</P></DOC></colHAREM>',
        encoding="iso8859-1",
    )
    out = tmp_path / "out.alinhado"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "run.xml" in err and "d1" in err and 'ID="r2"' in err
    assert not out.exists()


def test_runs_must_use_the_cd_format(first_harem: Collection) -> None:
    with pytest.raises(InputError, match="a run in the first-harem format of the CD"):
        align_collections(first_harem, _second(_RUN, "run.xml"))


def test_empty_run_document_is_ignored_with_a_warning() -> None:
    cd = _second(_CD, "cd.xml")
    run = _second(
        '<colHAREM><DOC DOCID="d1">\n</DOC><DOC DOCID="d2"><P>A ONU reuniu.</P></DOC></colHAREM>',
        "run.xml",
    )
    result = align_collections(cd, run)
    # d1 is consumed by the empty run document (the original neither aligns nor
    # reports it as missing); d2 has no run entity: its entity is missing
    assert result.warnings == ("Estou a ignorar o documento na submissÃo: d1",)
    assert [format_line(line) for line in result.lines][2:] == [
        "DOC d2",
        '<EM ID="c3" CATEG="ORGANIZACAO">ONU</EM> ---> [null]',
        "EOD",
        "",
        "",
    ]


def test_xml_references_are_expanded_and_records_stay_on_one_line() -> None:
    cd = _second(
        '<colHAREM><DOC DOCID="d"><P>Texto &amp; <EM ID="c1" CATEG="O" COMENT="a&amp;b&#10;c">'
        "Arte &amp; Linguagem</EM></P></DOC></colHAREM>",
        "cd.xml",
    )
    run = _second(
        '<colHAREM><DOC DOCID="d"><P>Texto &amp; <EM ID="r1" CATEG="O">Arte &amp;\n'
        "Linguagem</EM></P></DOC></colHAREM>",
        "run.xml",
    )
    lines = [format_line(line) for line in align_collections(cd, run).lines]
    assert lines[3] == (
        '<EM ID="c1" CATEG="O" COMENT="a&b c">Arte & Linguagem</EM> ---> '
        '[<EM ID="r1" CATEG="O">Arte & Linguagem</EM>]'
    )


_WORDS = ("Porto", "porto", "PORTO", "de", "A", "Lisboa", "1999", "e", "Rui", "Portugalia")


@settings(derandomize=True, deadline=None, max_examples=150)
@given(
    st.lists(
        st.tuples(st.sampled_from(_WORDS), st.sampled_from((" ", ", ", "\n", "-")), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_a_run_equal_to_the_cd_aligns_every_entity_with_itself(words) -> None:
    # Build one document where the flagged words are entities, and align it with itself:
    # an entity with a markable token finds exactly itself; one made only of
    # stopwords can never align (the original's rule), so it is missing on the
    # CD side and spurious on the run side.
    text = ""
    entities = []
    for number, (word, separator, tagged) in enumerate(words):
        if tagged:
            entities.append(
                Entity(
                    f"e{number}", ("LOCAL",), (), (), None, word, len(text), len(text) + len(word)
                )
            )
        text += word + separator
    doc = Document("d", text, entities=tuple(entities))
    cd = Collection("cd.xml", SECOND_HAREM, "utf-8", (doc,))
    lines = [format_line(line) for line in align_collections(cd, cd).lines]
    expected = ["# cd.xml", "# cd.xml", "DOC d"]
    spurious = []
    for entity in entities:
        tag = f'<EM ID="{entity.id}" CATEG="LOCAL">{entity.text}</EM>'
        if markable_tokens(entity.text):
            expected.append(f"{tag} ---> [{tag}]")
        else:
            expected.append(f"{tag} ---> [null]")
            spurious.append(f'<EM CATEG="ESPURIO">{entity.text}</EM> ---> [{tag}]')
    assert lines == [*expected, *spurious, "EOD", "", ""]


# ---------------------------------------------------------------------------
# run_align streams the files: the same bytes as aligning whole collections


def _streamed_and_whole(cd: Path, run: Path, tmp_path: Path) -> tuple[tuple, tuple]:
    return _streamed(cd, run, tmp_path / "streamed.alinhado"), _whole(cd, run)


def _streamed(cd: Path, run: Path, target: Path, workers: int = 1) -> tuple:
    """The bytes and warnings of ``run_align`` (the streamed step)."""
    from harem_pipeline.pipeline.align import run_align

    written_to, written = run_align(cd, run, target, workers=workers)
    return written_to.read_bytes(), written.warnings


def _whole(cd: Path, run: Path) -> tuple:
    """The bytes and warnings of aligning the two collections read whole."""
    from harem_pipeline.formats.alinhado import format_lines

    whole = align_collections(read_collection(cd), read_collection(run))
    return format_lines(whole.lines).encode("iso8859-1", errors="replace"), whole.warnings


def _shuffled_run(tmp_path: Path) -> Path:
    import random
    import re

    text = gzip.decompress(
        (DATA / "second-harem/ParticipacaoSegundoHaremReRelEM_t1.xml.gz").read_bytes()
    ).decode("iso8859-1")
    docs = re.findall(r"<DOC .*?</DOC>", text, re.DOTALL)
    random.Random(3).shuffle(docs)
    # some CD documents missing, one the CD lacks, one repeated
    docs = docs[10:] + ['<DOC DOCID="not-in-cd">x</DOC>', docs[20].replace('"', '" ', 2)]
    run = tmp_path / "shuffled.xml"
    head = text[: text.index("<DOC ")]
    run.write_text(head + "\n".join(docs) + "\n</COL>\n", encoding="iso8859-1")
    return run


SECOND_HAREM_CD = DATA / "second-harem/SegundoHaremReRelEM_t1.xml.gz"


@pytest.fixture(scope="module")
def shuffled_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple]:
    """The shuffled Second HAREM run (read-only) and its whole alignment with the CD.

    Aligned whole once for the tests that stream it in different ways.
    """
    run = _shuffled_run(tmp_path_factory.mktemp("shuffled"))
    return run, _whole(SECOND_HAREM_CD, run)


@pytest.mark.parametrize("budget", [0, _PENDING_BUDGET])
def test_streamed_alignment_pairs_documents_in_any_order(
    tmp_path: Path, monkeypatch, budget: int, shuffled_run: tuple[Path, tuple]
) -> None:
    from harem_pipeline.stages import align

    monkeypatch.setattr(align, "_PENDING_BUDGET", budget)  # 0: every read-ahead is spilled
    run, whole = shuffled_run
    assert _streamed(SECOND_HAREM_CD, run, tmp_path / "streamed.alinhado") == whole


def test_a_comment_between_documents_changes_no_byte(tmp_path: Path) -> None:
    """Markup the reader skips, met after some documents were aligned, leaves the output as
    without it."""
    raw = gzip.decompress(
        (DATA / "second-harem/ParticipacaoSegundoHaremReRelEM_t1.xml.gz").read_bytes()
    )
    cut = raw.index(b"<DOC ", len(raw) // 2)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "run.xml").write_bytes(raw)
    (tmp_path / "b" / "run.xml").write_bytes(raw[:cut] + b"<!-- a comment -->\n" + raw[cut:])
    plain = _streamed(SECOND_HAREM_CD, tmp_path / "a" / "run.xml", tmp_path / "a.alinhado", 2)
    commented = _streamed(SECOND_HAREM_CD, tmp_path / "b" / "run.xml", tmp_path / "b.alinhado", 2)
    assert commented == plain


@pytest.mark.parametrize("workers", [2, 3])
def test_aligning_in_worker_processes_writes_the_same_bytes(
    tmp_path: Path, workers: int, shuffled_run: tuple[Path, tuple]
) -> None:
    """(One worker, the plain loop, at the default read-ahead budget: the test above.)"""
    run, whole = shuffled_run
    assert _streamed(SECOND_HAREM_CD, run, tmp_path / "w.alinhado", workers) == whole


def _failing_on_d30(cd_doc, run_doc, *args, **kwargs):
    if cd_doc.docid == "d30":
        raise InputError("cd.xml", "an alignable document", "trouble", docid="d30")
    return _ALIGN_DOCUMENTS(cd_doc, run_doc, *args, **kwargs)


_ALIGN_DOCUMENTS = body_items  # what every way of aligning one document pair calls


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("broken", ["align", "read", "both"])
def test_the_first_bad_document_is_reported_with_worker_processes(
    tmp_path: Path, monkeypatch, workers: int, broken: str
) -> None:
    """Aligning document 30 fails before reading document 31 does, as in the plain loop."""
    from harem_pipeline.pipeline.align import run_align
    from harem_pipeline.stages import align

    if broken in ("align", "both"):
        monkeypatch.setattr(align, "body_items", _failing_on_d30)
    docs = [
        f'<DOC DOCID="d{i}"><P>O <EM ID="e{i}" CATEG="LOCAL">Porto</EM>.</P></DOC>'
        for i in range(40)
    ]
    (tmp_path / "cd.xml").write_text("<colHAREM>" + "".join(docs) + "</colHAREM>", "utf-8")
    if broken in ("read", "both"):
        docs[31] = docs[31].replace("Porto", "Porto<EM>")
    (tmp_path / "run.xml").write_text("<colHAREM>" + "".join(docs) + "</colHAREM>", "utf-8")
    target = tmp_path / "out.alinhado"
    with pytest.raises(InputError) as caught:
        run_align(tmp_path / "cd.xml", tmp_path / "run.xml", target, workers=workers)
    if broken == "read":
        assert str(caught.value).startswith(f"{tmp_path / 'run.xml'}, line 1, document d31:")
    else:
        assert (
            str(caught.value)
            == "cd.xml, document d30: expected an alignable document, found trouble"
        )
    assert not list(tmp_path.glob("*.alinhado*"))


def test_a_cd_docid_repeated_once_trimmed_pairs_as_the_whole_reading(tmp_path: Path) -> None:
    # the original's table keeps the later of two DOCIDs equal once trimmed
    cd = tmp_path / "cd.xml"
    cd.write_text(
        '<colHAREM><DOC DOCID="d1"><P>O <EM ID="a" CATEG="LOCAL">Porto</EM>.</P></DOC>'
        '<DOC DOCID=" d1"><P>A <EM ID="b" CATEG="LOCAL">Braga</EM>.</P></DOC></colHAREM>',
        encoding="utf-8",
    )
    run = tmp_path / "run.xml"
    run.write_text(
        '<colHAREM><DOC DOCID="d1"><P>A <EM ID="r" CATEG="LOCAL">Braga</EM>.</P></DOC></colHAREM>',
        encoding="utf-8",
    )
    streamed, whole = _streamed_and_whole(cd, run, tmp_path)
    assert streamed[0].decode() == whole[0].decode()
    assert streamed == whole


# ---------------------------------------------------------------------------
# OMITIDO written around a paragraph of the same span


def test_omitido_around_a_paragraph_keeps_the_spurious_entities_in_it(tmp_path: Path) -> None:
    # Expected bytes: the official Aligner's output on these files
    # (data/reference/omitido-p/README.md says how it was made).  The text of
    # <OMITIDO><P>..</P></OMITIDO> belongs to the P, not to the OMITIDO, so
    # run entities there that meet no golden entity are spurious.
    case = REFERENCE / "omitido-p"
    out = tmp_path / "run.alinhado"
    argv = ["align", "--cd", str(case / "cd.xml"), "--run", str(case / "run.xml"), "-o", str(out)]
    assert main(argv) == 0
    assert out.read_bytes() == (case / "run.alinhado").read_bytes()


def test_the_reader_keeps_which_of_omitido_and_p_is_outside() -> None:
    from harem_pipeline.formats.harem_xml import format_collection

    text = (
        '<colHAREM><DOC DOCID="d"><OMITIDO><P>a</P></OMITIDO><P><OMITIDO>b</OMITIDO></P>'
        "<OMITIDO> <P>c</P></OMITIDO></DOC></colHAREM>"
    )
    (doc,) = parse_collection(text, "x.xml", "utf-8").documents
    assert doc.omitted_outer == ((0, 1),)
    written = format_collection(parse_collection(text, "x.xml", "utf-8"))
    assert "<OMITIDO><P>a</P></OMITIDO><P><OMITIDO>b</OMITIDO></P>" in written


def test_empty_run_documents_are_warned_of_in_place_on_worker_processes(tmp_path: Path) -> None:
    """A run's document found empty where it is read (a worker) is warned of where the one
    stream warns of it: between the warnings of the documents around it."""
    docs = [
        f'<DOC DOCID="d{i}"><P>O <EM ID="e{i}" CATEG="LOCAL">Porto</EM>.</P></DOC>'
        for i in range(60)
    ]
    (tmp_path / "cd.xml").write_text("<colHAREM>" + "".join(docs[:50]) + "</colHAREM>", "utf-8")
    for i in (3, 17, 18, 40):
        docs[i] = f'<DOC DOCID="d{i}"> </DOC>'
    run = docs[:45] + docs[52:56] + docs[46:48] + [docs[49].replace("d49", "d57")]
    (tmp_path / "run.xml").write_text("<colHAREM>" + "".join(run) + "</colHAREM>", "utf-8")
    one = _streamed(tmp_path / "cd.xml", tmp_path / "run.xml", tmp_path / "1.alinhado")
    two = _streamed(tmp_path / "cd.xml", tmp_path / "run.xml", tmp_path / "2.alinhado", 2)
    assert two == one
    assert [w.split(": ")[-1] for w in one[1] if not w.endswith(": ")][:7] == [
        "d3",
        "d17",
        "d18",
        "d40",
        "d52",
        "d53",
        "d54",
    ]
