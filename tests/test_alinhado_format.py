"""The alignment-record format: every line kind of the HAREM intermediate files.

The strongest check is the byte-exact round trip over every record file the
official Java chain wrote (``data/reference/**``): parse each line, write it
back, compare bytes.  The report-like files (``.ida``, ``.globalid``,
``.stderr``) are label/value reports, not record files, and are out of scope.
"""

from __future__ import annotations

import difflib
import gzip
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats import alinhado as fmt
from harem_pipeline.formats.alinhado import (
    AltClose,
    AltOpen,
    Blank,
    DocEnd,
    DocStart,
    DocumentLine,
    Evaluation,
    Header,
    ManualCheck,
    Omitted,
    Record,
    SpuriousListLine,
    Tag,
    format_evaluation,
    format_line,
    format_tag,
    parse_line,
    parse_tag,
)

DATA = Path(__file__).resolve().parent.parent / "data"
CASES = Path(__file__).resolve().parent / "cases" / "records"
REPORT_SUFFIXES = (".ida.gz", ".globalid.gz", ".stderr.gz")
RECORD_FILES = sorted(
    p for p in (DATA / "reference").glob("**/*.gz") if not p.name.endswith(REPORT_SUFFIXES)
)


def _first_difference(expected: bytes, found: bytes, encoding: str) -> str:
    diff = difflib.unified_diff(
        expected.decode(encoding).splitlines(keepends=True),
        found.decode(encoding).splitlines(keepends=True),
        "reference",
        "written",
        n=0,
    )
    return "".join(list(diff)[:12])


# ---------------------------------------------------------------------------
# Round trip over the reference files


def test_reference_record_files_are_all_found() -> None:
    # 13 exemplo0 + 26 exemplo1 + 44 gabriel files, of which 5 + 10 + 17 are reports.
    assert len(RECORD_FILES) == 8 + 16 + 27


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_reference_file_round_trip_is_byte_exact(path: Path) -> None:
    expected = gzip.decompress(path.read_bytes())
    encoding, lines = fmt.iter_lines(path)
    buffer = io.StringIO(newline="")
    fmt.write_to(buffer, lines)
    found = buffer.getvalue().encode(encoding)
    assert found == expected, _first_difference(expected, found, encoding)


def test_write_lines_writes_the_same_bytes(tmp_path: Path) -> None:
    path = DATA / "reference" / "exemplo1" / "total_harem.veu.alts.gz"
    encoding, lines = fmt.read_lines(path)
    assert encoding == "iso8859-1"
    out = tmp_path / "copy.alts"
    fmt.write_lines(out, lines, encoding)
    assert out.read_bytes() == gzip.decompress(path.read_bytes())


# ---------------------------------------------------------------------------
# Hand-picked lines


def test_alinhado_record_without_evaluation() -> None:
    text = (
        '<EM ID="cd4" CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="DIVISAO">Lisboa</EM> ---> '
        '[<EM ID="sub3" CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="DIVISAO">Lisboa</EM>]'
    )
    record = parse_line(text, line=7)
    assert isinstance(record, Record)
    assert record.gold.name == "EM"
    assert record.gold.attr("ID") == "cd4"
    assert record.gold.categories == ("LOCAL",)
    assert record.gold.types == ("HUMANO",)
    assert record.gold.subtypes == ("DIVISAO",)
    assert record.gold.morf is None
    assert record.system is not None and len(record.system) == 1
    assert record.system[0].attr("ID") == "sub3"
    assert record.evaluation is None
    assert record.marker == "" and record.suffix == ""
    assert record.line == 7
    assert format_line(record) == text


def test_avalida_record_with_partials() -> None:
    text = (
        '<EM ID="cdAlt2b" CATEG="ORGANIZACAO" TIPO="INSTITUICAO">UC</EM> ---> '
        '[<EM ID="alt1" CATEG="PESSOA" TIPO="CARGO">Professor da Faculdade de Letras da UC</EM>, '
        '<EM ID="alt3" CATEG="ORGANIZACAO" TIPO="INSTITUICAO">Faculdade de Letras da UC</EM>, '
        '<EM ID="alt2b" CATEG="ORGANIZACAO" TIPO="INSTITUICAO">UC</EM>]'
        "::[Parcialmente_Correcto_por_Excesso(0.07142857142857142; 0.9285714285714286), "
        "Parcialmente_Correcto_por_Excesso(0.1; 0.9), Correcto]"
    )
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.system is not None
    assert [tag.attr("ID") for tag in record.system] == ["alt1", "alt3", "alt2b"]
    assert record.marker == "::"
    assert record.evaluation is not None
    kinds = [item.kind for item in record.evaluation]
    assert kinds == [fmt.EVAL_PARTIAL_EXCESS, fmt.EVAL_PARTIAL_EXCESS, fmt.EVAL_CORRECT]
    assert record.evaluation[0].weight == 0.07142857142857142
    assert record.evaluation[0].complement == 0.9285714285714286
    assert record.evaluation[1].weight == 0.1
    assert record.evaluation[2].weight is None
    assert format_line(record) == text
    assert format_line(record, marker=":") == text.replace("]::[", "]:[")


def test_null_record_gets_one_em_falta() -> None:
    text = '<EM ID="cd3" CATEG="TEMPO" TIPO="TEMPO_CALEND">1999</EM> ---> [null]::[Em_Falta]'
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.system is None
    assert record.evaluation == (Evaluation(fmt.EVAL_MISSING, None, None, "Em_Falta"),)
    assert format_line(record) == text


def test_spurious_record_second_harem() -> None:
    text = '<EM CATEG="ESPURIO">Ele</EM> ---> [<EM ID="sub0" CATEG="OUTRO">Ele</EM>]::[Espurio]'
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.gold.is_spurious
    assert record.gold.categories == ("ESPURIO",)
    assert record.evaluation is not None
    assert record.evaluation[0].kind == fmt.EVAL_SPURIOUS
    assert format_line(record) == text


def test_alts_record_keeps_alt_weight_suffix() -> None:
    text = (
        '<EM ID="cdAlt4a" CATEG="ORGANIZACAO" TIPO="INSTITUICAO">Faculdade de Letras</EM>'
        " ---> [null]::[Em_Falta]^0.25"
    )
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.suffix == "^0.25"
    assert format_line(record, marker=":").endswith("[null]:[Em_Falta]^0.25")


def test_emir_record_semantic_item_with_unbalanced_parenthesis() -> None:
    # From exemplo0 total_muc.veu.alts.emir.altrel: the Java writes "PALT(1.0))}".
    item = (
        "{Categoria(Correcto:[PESSOA] Espurio:[] Em_Falta:[]) Tipo(Correcto:[CARGO] Espurio:[] "
        "Em_Falta:[]) Subtipo(Correcto:[] Espurio:[] Em_Falta:[]) MaxCSC_CD(2.3375) "
        "MaxCSC_S(2.3375) CSC(2.3375) Peso(1.0) PALT(1.0))}"
    )
    text = (
        '<EM ID="cdAlt2a" CATEG="PESSOA" TIPO="CARGO">Professor da Faculdade de Letras</EM> ---> '
        '[<EM ID="alt2a" CATEG="PESSOA" TIPO="CARGO">Professor da Faculdade de Letras</EM>]'
        f"::[{item}]"
    )
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.evaluation == (Evaluation(fmt.EVAL_SEMANTIC, None, None, item),)
    assert record.suffix == ""
    assert format_line(record) == text


def test_first_harem_records_from_the_vizir_document() -> None:
    text = (
        '<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Rússia</LOCAL> ---> '
        '[<LOCAL TIPO="ALARGADO" MORF="F,S">Rússia</LOCAL>]:[Correcto]'
    )
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.gold == Tag("LOCAL", (("TIPO", "ADMINISTRATIVO"), ("MORF", "F,S")), "Rússia")
    assert record.gold.categories == ("LOCAL",)
    assert record.gold.morf == "F,S"
    assert record.marker == ":"
    assert format_line(record) == text

    spurious = parse_line(
        "<ESPURIO>História</ESPURIO> ---> "
        '[<ABSTRACCAO TIPO="DISCIPLINA" MORF="F,S">História</ABSTRACCAO>]:[Espúrio]'
    )
    assert isinstance(spurious, Record)
    assert spurious.gold.is_spurious
    assert spurious.evaluation == (Evaluation(fmt.EVAL_SPURIOUS, None, None, "Espúrio"),)
    assert format_line(spurious).endswith(":[Espúrio]")

    vague = parse_tag('<COISA|COISA TIPO="CLASSE|OBJECTO" MORF="?,?">BATTENFELD</COISA|COISA>')
    assert vague.name == "COISA|COISA"
    assert vague.categories == ("COISA", "COISA")
    assert vague.types == ("CLASSE", "OBJECTO")
    assert vague.morf == "?,?"


def test_vizir_output_record_morphological_item() -> None:
    text = (
        '<EM MORF="M,S">Hotel Lisboa Plaza</EM> ---> [<EM MORF="M,S">Hotel Lisboa</EM>, '
        '<EM MORF="F,S">Plaza</EM>]:[(Género: Parcialmente Correcto 0.5) '
        "(Número: Parcialmente Correcto 0.5) (Combinada: Parcialmente Correcto 0.5)]"
    )
    record = parse_line(text)
    assert isinstance(record, Record)
    assert record.evaluation is not None
    assert [item.kind for item in record.evaluation] == [fmt.EVAL_MORPHOLOGICAL]
    assert format_line(record) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# participacao.xml", Header(" participacao.xml")),
        ("#ABSTRACCAO(DISCIPLINA{OUTRO}):OUTRO", Header("ABSTRACCAO(DISCIPLINA{OUTRO}):OUTRO")),
        ("DOC teste1", DocStart("teste1")),
        ("EOD", DocEnd()),
        ("", Blank()),
        ("<ALT>", AltOpen(None)),
        ("<ALT3>", AltOpen(3)),
        ("</ALT12>", AltClose(12)),
        ("</ALT>", AltClose(None)),
        ("HAREM-251-04443 PT Web", DocumentLine("HAREM-251-04443", "PT", "Web")),
        ("<OMITIDO>texto omitido</OMITIDO>", Omitted("<OMITIDO>texto omitido</OMITIDO>")),
        (
            '[<EM ID="sub0" CATEG="OUTRO">Ele</EM>]',
            SpuriousListLine((Tag("EM", (("ID", "sub0"), ("CATEG", "OUTRO")), "Ele"),)),
        ),
    ],
)
def test_simple_line_kinds(text: str, expected: fmt.Line) -> None:
    parsed = parse_line(text)
    assert parsed == expected
    assert format_line(parsed) == text


def test_manual_check_is_not_a_record() -> None:
    # From gabriel run.alinhado, line 8883 (ISO-8859-1 "á", "ã" decoded).
    text = (
        "<VERIFICACAO_MANUAL> Os átomos seguintes não foram correctamente identificados: "
        '[EEE]. Verifique o seguinte alinhamento: <EM ID="dav-100932-401" '
        'CATEG="OBRA|ORGANIZACAO" TIPO="PLANO|INSTITUICAO">EEE"EEE</EM> ---> null '
        "</VERIFICACAO_MANUAL>"
    )
    parsed = parse_line(text)
    assert isinstance(parsed, ManualCheck)
    assert parsed.body.startswith(" Os átomos") and parsed.body.endswith("---> null ")
    assert format_line(parsed) == text


def test_line_ends_are_kept() -> None:
    assert parse_line("EOD\r\n") == DocEnd("\r\n")
    assert parse_line("EOD\n") == DocEnd("\n")
    text = "DOC a\r\n\r\n<ALT>\n</ALT>"
    lines = list(fmt.parse_lines(text))
    assert lines == [DocStart("a", "\r\n"), Blank("\r\n"), AltOpen(None, "\n"), AltClose(None, "")]
    assert [item.line for item in lines] == [1, 2, 3, 4]
    assert fmt.format_lines(lines) == text


# ---------------------------------------------------------------------------
# Evaluations


def test_format_evaluation_prints_like_java() -> None:
    # 1 - 0.1 = 0.9 exactly in binary64 printing; 1 - 0.07142857142857142 prints as in
    # exemplo0 total_muc.alinhado.avalida.
    assert format_evaluation(fmt.EVAL_PARTIAL_EXCESS, 0.25).text == (
        "Parcialmente_Correcto_por_Excesso(0.25; 0.75)"
    )
    assert format_evaluation(fmt.EVAL_PARTIAL_DEFECT, 0.07142857142857142).text == (
        "Parcialmente_Correcto_por_Defeito(0.07142857142857142; 0.9285714285714286)"
    )
    assert format_evaluation(fmt.EVAL_PARTIAL_DEFECT, 1.9619383951343929e-4).text == (
        "Parcialmente_Correcto_por_Defeito(1.9619383951343929E-4; 0.9998038061604866)"
    )
    assert format_evaluation(fmt.EVAL_CORRECT) == Evaluation("Correcto", None, None, "Correcto")
    assert format_evaluation(fmt.EVAL_SPURIOUS).text == "Espurio"
    with pytest.raises(ValueError):
        format_evaluation(fmt.EVAL_PARTIAL_EXCESS)
    with pytest.raises(ValueError):
        format_evaluation("Espúrio")


# ---------------------------------------------------------------------------
# Helpers


def test_strip_semantics() -> None:
    tag = parse_tag('<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Rússia</LOCAL>')
    assert format_tag(fmt.strip_semantics(tag)) == '<EM MORF="F,S">Rússia</EM>'
    bare = parse_tag('<EM ID="x" CATEG="ORGANIZACAO" TIPO="EMPRESA">Embratur</EM>')
    assert format_tag(fmt.strip_semantics(bare)) == "<EM>Embratur</EM>"
    spurious = parse_tag('<EM CATEG="ESPURIO">Ele</EM>')
    assert format_tag(fmt.strip_semantics(spurious)) == "<ESPURIO>Ele</ESPURIO>"


# ---------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<EM ID="a">x</EM> [<EM>x</EM>]', '"--->" after the gold entity'),
        ('<EM ID="a">x ---> [null]', "a record GOLD"),
        ("<EM>x</EM> ---> [<EM>y</EM>", '", " or "]" after an entity, found end of line'),
        ("<EM>x</EM> ---> [<EM>y]", 'a tag <NAME KEY="value"'),
        ("<EM>x</EM> ---> [<EM>y</EM>, ]", 'a tag <NAME KEY="value"'),
        ("<EM>x</EM> ---> [<EM>y</EM>]:[Correcto", "an evaluation list closed by ]"),
        ("<EM>x</EM> ---> [<EM>y</EM>]::[Certo]", "an evaluation (Correcto"),
        ("<EM>x</EM> ---> [<EM>y</EM>] trailing", ":[EVAL, ...] or ::[EVAL, ...]"),
        ("<VERIFICACAO_MANUAL> a ---> null", "</VERIFICACAO_MANUAL> at the end"),
        ("qualquer coisa", "a record, #header"),
    ],
)
def test_bad_lines_raise_one_line_input_error(text: str, expected: str) -> None:
    with pytest.raises(InputError) as info:
        parse_line(text, path="run.alinhado", line=12)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("run.alinhado, line 12: expected ")
    assert expected in message


def test_bad_line_in_a_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.alinhado"
    path.write_bytes(b"DOC a\n<EM>x</EM> ---> [null]\n<EM>y</EM> -> [null]\nEOD\n")
    _, lines = fmt.iter_lines(path)
    with pytest.raises(InputError) as info:
        list(lines)
    assert str(info.value).startswith(f"{path}, line 3: expected ")


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        fmt.iter_lines(tmp_path / "absent.alinhado")


def test_encoding_is_detected_per_file(tmp_path: Path) -> None:
    latin = tmp_path / "latin.alinhado"
    latin.write_bytes("<EM>Rússia</EM> ---> [null]\n".encode("iso8859-1"))
    utf8 = tmp_path / "utf8.alinhado"
    utf8.write_bytes("<EM>Rússia</EM> ---> [null]\n".encode())
    for path, encoding in ((latin, "iso8859-1"), (utf8, "utf-8")):
        found, lines = fmt.read_lines(path)
        assert found == encoding
        assert isinstance(lines[0], Record) and lines[0].gold.text == "Rússia"


# ---------------------------------------------------------------------------
# Properties

_NAME = st.sampled_from(["EM", "LOCAL", "COISA|COISA", "ESPURIO", "PESSOA"])
_KEY = st.sampled_from(["ID", "CATEG", "TIPO", "SUBTIPO", "MORF", "COMENT", "OMITIDO"])
_VALUE = st.text(
    st.characters(blacklist_characters='"\r\n', blacklist_categories=("Cs",)), max_size=12
)
_TEXT = st.text(
    st.characters(blacklist_characters="<>\r\n", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=20,
)
_TAGS = st.builds(
    Tag,
    _NAME,
    st.lists(st.tuples(_KEY, _VALUE), max_size=4).map(tuple),
    _TEXT,
)
_WEIGHTS = st.floats(min_value=0.0, max_value=0.5, allow_nan=False)
_EVALUATIONS = st.one_of(
    st.sampled_from([fmt.EVAL_CORRECT, fmt.EVAL_MISSING, fmt.EVAL_SPURIOUS]).map(format_evaluation),
    st.builds(
        format_evaluation,
        st.sampled_from([fmt.EVAL_PARTIAL_EXCESS, fmt.EVAL_PARTIAL_DEFECT]),
        _WEIGHTS,
    ),
    st.just(Evaluation(fmt.EVAL_SPURIOUS, None, None, "Espúrio")),
)


@st.composite
def _records(draw: st.DrawFn) -> Record:
    gold = draw(_TAGS)
    system = draw(st.one_of(st.none(), st.lists(_TAGS, min_size=1, max_size=4).map(tuple)))
    evaluated = draw(st.booleans())
    if not evaluated:
        return Record(gold, system, None, "", "", draw(st.sampled_from(["\n", "\r\n"])))
    count = 1 if system is None else len(system)
    evaluation = tuple(draw(st.lists(_EVALUATIONS, min_size=count, max_size=count)))
    marker = draw(st.sampled_from([":", "::"]))
    suffix = draw(st.sampled_from(["", "^0.25", "^1.0"]))
    return Record(gold, system, evaluation, marker, suffix, draw(st.sampled_from(["\n", "\r\n"])))


@settings(derandomize=True, deadline=None, max_examples=300)
@given(_TAGS)
def test_tag_round_trip(tag: Tag) -> None:
    text = format_tag(tag)
    assert parse_tag(text) == tag
    assert format_tag(parse_tag(text)) == text


@settings(derandomize=True, deadline=None, max_examples=300)
@given(_records())
def test_record_round_trip_and_idempotent_format(record: Record) -> None:
    text = format_line(record)
    parsed = parse_line(text, eol=record.eol)
    assert parsed == record
    assert format_line(parsed) == text
    ours = format_line(record, marker=":")
    assert format_line(parse_line(ours), marker=":") == ours
    reparsed = parse_line(ours)
    assert isinstance(reparsed, Record)
    assert reparsed.marker == ("" if record.evaluation is None else ":")
