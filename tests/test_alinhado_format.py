"""The alignment-record format: every line kind of the HAREM intermediate files.

The strongest check is the byte-exact round trip over every record file the
official Java chain wrote (``data/reference/**``): parse each line, write it
back, compare bytes.  The report-like files (``.ida``, ``.globalid``,
``.stderr``) are label/value reports, not record files, and are out of scope.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import gzip
import io
import itertools
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
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
    Line,
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
from tests.helpers.paths import DATA, one_veil_of_the_real_run

CASES = Path(__file__).resolve().parent / "cases" / "records"
REPORT_SUFFIXES = (".ida.gz", ".globalid.gz", ".stderr.gz", ".ERROS.txt.gz")
# Reference folders of other formats: the Aligner's token view (entities' tokens numbered),
# the ReRelEM chain's files, the official result pages.
OTHER_FORMATS = ("etiquetas", "rerelem", "official")
RECORD_FILES = sorted(
    p
    for p in (DATA / "reference").glob("**/*.gz")
    if not p.name.endswith(REPORT_SUFFIXES)
    and p.relative_to(DATA / "reference").parts[0] not in OTHER_FORMATS
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
    # 13 exemplo0 + 26 exemplo1 + 44 gabriel files, of which 5 + 10 + 17 are reports;
    # simulated/ (bench/oracle_chains.py): 21 files, of which 12 are .ida reports;
    # tempo/: 47 Emir and .tempo files (beside their .ida reports and ERROS.txt side files).
    # brackets/: 43 files, of which 12 .ida, 1 .globalid and 1 .stderr.
    # bracket-edges/: 13 files, of which 3 .ida, 1 .globalid and 1 .stderr.
    assert len(RECORD_FILES) == 8 + 16 + 27 + 9 + 47 + 29 + 8


@pytest.mark.parametrize(
    "path", one_veil_of_the_real_run(RECORD_FILES), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_reference_file_round_trip_is_byte_exact(path: Path) -> None:
    expected = gzip.decompress(path.read_bytes())
    encoding, lines = fmt.iter_lines(path)
    buffer = io.StringIO(newline="")
    fmt.write_to(buffer, lines)
    found = buffer.getvalue().encode(encoding)
    assert found == expected, _first_difference(expected, found, encoding)


AVALIDA_FILES = sorted((DATA / "reference").glob("*/*.alinhado.avalida.gz"))


@pytest.mark.parametrize("path", AVALIDA_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_format_evaluation_rebuilds_every_reference_partial(path: Path) -> None:
    # The Java prints w and 1-w computed in binary64: rebuilding each item from its
    # weight alone must give the written text, complement included.
    _, lines = fmt.iter_lines(path)
    partials = 0
    for item in lines:
        if isinstance(item, Record) and item.evaluation:
            for evaluation in item.evaluation:
                if evaluation.kind in fmt.PARTIAL_KINDS:
                    partials += 1
                    assert format_evaluation(evaluation.kind, evaluation.weight) == evaluation
                else:
                    assert format_evaluation(evaluation.kind) == evaluation
    assert partials > 0


def test_write_lines_writes_the_same_bytes(tmp_path: Path) -> None:
    path = DATA / "reference" / "exemplo1" / "total_harem.veu.alts.gz"
    encoding, lines = fmt.read_lines(path)
    assert encoding == "iso8859-1"
    out = tmp_path / "copy.alts"
    fmt.write_lines(out, lines, encoding)
    assert out.read_bytes() == gzip.decompress(path.read_bytes())


def test_mixed_line_ends_of_the_lampada_example_are_kept() -> None:
    # The Nov 2008 AlinhEM wrote CRLF up to the last ALT line, then LF after </ALT> and
    # the records outside ALT blocks (lines 19-24, 27-30), CRLF again on DOC and one blank.
    path = DATA / "lampada2" / "exemplo0" / "ficheiro.alinhado"
    raw = path.read_bytes()
    encoding, lines = fmt.read_lines(path)
    assert encoding == "utf-8"
    assert fmt.format_lines(lines).encode(encoding) == raw
    records = [item for item in lines if isinstance(item, Record)]
    assert len(records) == 13
    assert [item.line for item in lines if item.eol == "\n"] == [
        19,
        20,
        21,
        22,
        23,
        24,
        27,
        28,
        29,
        30,
    ]
    assert lines[0] == Header(" teste2703sub.xml", eol="\r\n")
    assert lines[18] == AltClose(None, eol="\n")
    kinds = [type(item).__name__ for item in lines]
    # 2 headers, DOC teste1 and teste2 (no EOD in this version), 5 ALT openings and closings.
    assert (kinds.count("Header"), kinds.count("DocStart"), kinds.count("DocEnd")) == (2, 2, 0)
    assert (kinds.count("AltOpen"), kinds.count("AltClose"), kinds.count("Blank")) == (5, 5, 4)


def test_crlf_alts_of_the_lampada_example() -> None:
    path = DATA / "lampada2" / "exemplo0" / "ficheiro.alinhado.avalida.veu.alts"
    encoding, lines = fmt.read_lines(path)
    assert {item.eol for item in lines} == {"\r\n"}
    assert fmt.format_lines(lines).encode(encoding) == path.read_bytes()
    weights = [item.suffix for item in lines if isinstance(item, Record)]
    # Four alternatives in the one ALT block: its 6 records in alternatives and its 2
    # spurious records after </ALT4> carry weight 1/4; the 7 records outside carry none.
    assert weights == ["^0.25"] * 8 + [""] * 7


def test_first_harem_veus_result_case_file() -> None:
    path = CASES / "first_harem_veus_result.txt"
    raw = path.read_bytes()
    encoding, lines = fmt.read_lines(path)
    assert encoding == "iso8859-1"
    assert fmt.format_lines(lines).encode(encoding) == raw
    assert {item.eol for item in lines[:-1]} == {"\r\n"}
    assert lines[-1].eol == ""
    assert lines[0] == Header('CATEGORIA1=["TIPO1", "TIPO2"]; CATEGORIA2=["TIPO3"]', eol="\r\n")
    assert lines[1] == DocumentLine("HAREM-251-04443", "PT", "Web", eol="\r\n")
    records = [item for item in lines if isinstance(item, Record)]
    assert len(records) == 11 + 3
    # Example 3: two system entities, two partial evaluations (original document).
    hotel = records[2]
    assert hotel.gold.text == "Hotel Lisboa Plaza"
    assert hotel.system is not None
    assert [tag.categories for tag in hotel.system] == [("LOCAL",), ("PESSOA",)]
    assert hotel.evaluation is not None
    assert [item.weight for item in hotel.evaluation] == [0.3333333333333333, 0.16666666666666666]
    # Example 4: vague First HAREM category.
    assert records[3].gold.categories == ("COISA", "COISA")
    # Example 7: spurious, accented evaluation.
    assert records[6].gold.is_spurious
    assert records[6].evaluation is not None
    assert records[6].evaluation[0].kind == fmt.EVAL_SPURIOUS
    # Example 8: missing.
    assert records[7].system is None
    # Example 9: system entity without MORF.
    assert records[8].system is not None and records[8].system[0].morf is None
    assert all(record.marker == ":" for record in records)
    assert isinstance(lines[-3], AltClose) and lines[-3].n is None
    assert isinstance(lines[-2], Omitted)
    assert isinstance(lines[-1], ManualCheck)
    assert sum(isinstance(item, Blank) for item in lines) == 1


def test_first_harem_vizir_output_case_file() -> None:
    path = CASES / "first_harem_vizir_output.txt"
    encoding, lines = fmt.read_lines(path)
    assert encoding == "utf-8"
    assert fmt.format_lines(lines).encode(encoding) == path.read_bytes()
    records = [item for item in lines if isinstance(item, Record)]
    assert len(records) == 14
    assert all(
        r.evaluation is not None
        and len(r.evaluation) == 1
        and r.evaluation[0].kind == fmt.EVAL_MORPHOLOGICAL
        for r in records
    )
    # Example 4 (BATTENFELD) and example 7 (História), as printed in the original.
    assert records[3].evaluation == (
        Evaluation(
            fmt.EVAL_MORPHOLOGICAL,
            None,
            None,
            "(Género: Sobre especificado 0) (Número: Sobre especificado 0) "
            "(Combinada: Incorrecto 0)",
        ),
    )
    assert records[6].gold == Tag("ESPURIO", (), "História")
    # Example 3: two system entities, one verdict.
    assert records[2].system is not None and len(records[2].system) == 2


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
    assert parse_line("EOD\r\n") == DocEnd(eol="\r\n")
    assert parse_line("EOD\n") == DocEnd(eol="\n")
    text = "DOC a\r\n\r\n<ALT>\n</ALT>"
    lines = list(fmt.parse_lines(text))
    assert lines == [
        DocStart("a", eol="\r\n"),
        Blank(eol="\r\n"),
        AltOpen(None, eol="\n"),
        AltClose(None, eol=""),
    ]
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
        ("<EM>x</EM> ---> [null]::[Em_Falta, Espurio]", "1 evaluation item(s) for [null]"),
        ("<EM>x</EM> ---> [<EM>y</EM>, <EM>z</EM>]:[Correcto]", "2 evaluation item(s)"),
        ("<EM>x</EM> ---> [<EM>y</EM>]:[Correcto, Correcto]", "1 evaluation item(s) for 1"),
        (
            "<EM>x</EM> ---> [null]:[(Número: Correcto 1), (Número: Correcto 1)]",
            "exactly one morphological evaluation",
        ),
        ("<EM>x</EM> ---> [<EM>y</EM>]:[Parcialmente_Correcto_por_Excesso(a; b)]", "numbers"),
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


def test_lines_before_a_bad_line_are_streamed_first(tmp_path: Path) -> None:
    path = tmp_path / "bad.avalida"
    path.write_bytes(b"DOC a\n<EM>x</EM> ---> [null]::[Em_Falta]\nnonsense\n")
    _, lines = fmt.iter_lines(path)
    assert next(lines) == DocStart("a")
    assert isinstance(next(lines), Record)
    with pytest.raises(InputError, match="line 3"):
        next(lines)


def test_gzip_and_encoding_of_a_reference_file() -> None:
    encoding, lines = fmt.iter_lines(DATA / "reference" / "exemplo0" / "total_muc.alinhado.gz")
    assert encoding == "utf-8"
    first = list(itertools.islice(lines, 3))
    assert first == [Header(" participacao.xml"), Header(" cd.xml"), DocStart("teste1")]


def test_marker_is_rewritten_only_when_asked(tmp_path: Path) -> None:
    path = DATA / "reference" / "exemplo0" / "total_muc.alinhado.avalida.gz"
    encoding, lines = fmt.read_lines(path)
    records = [item for item in lines if isinstance(item, Record)]
    assert {record.marker for record in records} == {"::"}
    out = tmp_path / "ours.avalida"
    fmt.write_lines(out, lines, encoding, marker=":")
    written = out.read_text(encoding)
    expected = gzip.decompress(path.read_bytes()).decode(encoding).replace("]::[", "]:[")
    assert written == expected
    with pytest.raises(ValueError):
        format_line(records[0], marker=";")


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        fmt.iter_lines(tmp_path / "absent.alinhado")


def test_utf8_bom_is_read_and_not_written_back(tmp_path: Path) -> None:
    # A BOM is an accident of the input: every stage writes plain UTF-8.
    path = tmp_path / "bom.alinhado"
    raw = "\ufeffDOC d\r\n<EM>Rússia</EM> ---> [null]\r\n".encode()
    path.write_bytes(raw)
    encoding, lines = fmt.read_lines(path)
    assert encoding == "utf-8"
    assert lines[0] == DocStart("d", eol="\r\n")
    out = tmp_path / "copy.alinhado"
    fmt.write_lines(out, lines, encoding)
    assert out.read_bytes() == raw[3:]


def test_late_latin1_byte_is_found_past_the_first_chunk(tmp_path: Path) -> None:
    # 5,000 ASCII records (~150 KB), then one ISO-8859-1 "ú": the whole file is latin-1.
    path = tmp_path / "late.alinhado"
    body = b"<EM>Lisboa</EM> ---> [null]\n" * 5000 + "<EM>Rússia</EM> ---> [null]\n".encode(
        "iso8859-1"
    )
    path.write_bytes(body)
    encoding, lines = fmt.read_lines(path)
    assert encoding == "iso8859-1"
    last = lines[-1]
    assert isinstance(last, Record) and last.gold.text == "Rússia" and last.line == 5001


def test_record_flags() -> None:
    missing = parse_line("<EM>x</EM> ---> [null]:[Em_Falta]")
    spurious = parse_line('<EM CATEG="ESPURIO">x</EM> ---> [<EM>x</EM>]:[Espurio]')
    assert isinstance(missing, Record) and isinstance(spurious, Record)
    assert (missing.system_texts, missing.is_spurious) == (None, False)
    assert (spurious.system_texts, spurious.is_spurious) == (("x",), True)


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


_SYSTEMS = st.one_of(st.none(), st.lists(_TAGS, min_size=1, max_size=4).map(tuple))
_EOLS = st.sampled_from(["\n", "\r\n"])
_MARKERS = st.sampled_from([":", "::"])
_SUFFIXES = st.sampled_from(["", "^0.25", "^1.0"])
_EVALUATION_LISTS = functools.cache(
    lambda count: st.lists(_EVALUATIONS, min_size=count, max_size=count)
)
"""Strategies _records draws from, built once (the values drawn are the same)."""


@st.composite
def _records(draw: st.DrawFn) -> Record:
    gold = draw(_TAGS)
    system = draw(_SYSTEMS)
    evaluated = draw(st.booleans())
    if not evaluated:
        return Record(gold, system, None, "", "", draw(_EOLS))
    count = 1 if system is None else len(system)
    evaluation = tuple(draw(_EVALUATION_LISTS(count)))
    marker = draw(_MARKERS)
    suffix = draw(_SUFFIXES)
    return Record(gold, system, evaluation, marker, suffix, draw(_EOLS))


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


_FREE = st.text(
    st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=30
)
_TOKEN = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=8)
_ENDS = st.sampled_from(["\n", "\r\n", ""])
_LINES: st.SearchStrategy[Line] = st.one_of(
    _records(),
    st.builds(Header, _FREE, eol=_ENDS),
    st.builds(DocStart, _FREE, eol=_ENDS),
    st.builds(DocEnd, eol=_ENDS),
    st.builds(Blank, eol=_ENDS),
    st.builds(AltOpen, st.one_of(st.none(), st.integers(0, 99)), eol=_ENDS),
    st.builds(AltClose, st.one_of(st.none(), st.integers(0, 99)), eol=_ENDS),
    st.builds(
        DocumentLine,
        st.builds(lambda a, b: f"HAREM-{a}-{b}", st.integers(0, 999), st.integers(0, 99999)),
        _TOKEN,
        _TOKEN,
        eol=_ENDS,
    ),
    st.builds(ManualCheck, _FREE, eol=_ENDS),
    st.builds(Omitted, _FREE.map(lambda t: "<OMITIDO>" + t), eol=_ENDS),
    st.builds(SpuriousListLine, st.lists(_TAGS, max_size=3).map(tuple), eol=_ENDS),
)


@settings(derandomize=True, deadline=None, max_examples=400)
@given(_LINES)
def test_every_line_kind_round_trips(item: Line) -> None:
    text = format_line(item)
    assert parse_line(text, eol=item.eol) == item
    if item.eol:
        assert parse_line(text + item.eol) == item
    assert format_line(parse_line(text, eol=item.eol)) == text


@settings(derandomize=True, deadline=None, max_examples=100)
@given(st.lists(_LINES, max_size=8))
def test_a_sequence_of_lines_round_trips_through_text(lines: list[Line]) -> None:
    # Only the last line may lack a line end, as in a real file.
    fixed = [
        item if item.eol or index == len(lines) - 1 else dataclasses.replace(item, eol="\n")
        for index, item in enumerate(lines)
    ]
    text = fmt.format_lines(fixed)
    assert list(fmt.parse_lines(text)) == fixed
    assert [item.line for item in fmt.parse_lines(text)] == list(range(1, len(fixed) + 1))


def test_bad_record_through_the_command_line_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.alinhado"
    path.write_bytes(b"DOC a\n<EM>x</EM> ---> [<EM>x</EM>\nEOD\n")
    status = main(["avalida", str(path), "-o", str(tmp_path / "out.avalida")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}, line 2: expected" in err
    assert not (tmp_path / "out.avalida").exists()


def test_a_vague_spurious_gold_is_spurious_for_every_stage() -> None:
    # AvalIDa, Véus, AltinaID, Ida2ID and Vizir all ask Tag.is_spurious.
    assert parse_tag('<EM CATEG="PESSOA|ESPURIO">Ele</EM>').is_spurious
    assert parse_tag("<ESPURIO>Ele</ESPURIO>").is_spurious
    assert not parse_tag('<EM CATEG="PESSOA">Ele</EM>').is_spurious


# ---------------------------------------------------------------------------
# Evaluation lists: the one-match reading of Emir lists against the bracket scan

_EMIR_ITEMS = st.sampled_from(
    [
        "{Categoria(Correcto:[LOCAL] Espurio:[] Em_Falta:[]) MaxCSC_CD(2.275) Peso(1.0)}",
        "{Categoria(Correcto:[] Espurio:[PESSOA, LOCAL] Em_Falta:[]) PALT(1.0))}",
        "{Tipo(Correcto:[] Espurio:[] Em_Falta:[HUMANO]) CSC(0.0)}",
        "{}",
        "{[]}",
        "{Peso(0.5)}",
    ]
)
_LIST_TEXTS = st.text(alphabet="{}[], x", max_size=8)
_LIST_ITEMS = (
    _EMIR_ITEMS | _LIST_TEXTS.map(lambda text: "{" + text + "}") | _LIST_TEXTS  # and odd ones
)


def _evaluation_list_read(read, text: str) -> object:
    try:
        return read(text, 0, "f.emir", 7)
    except InputError as error:
        return str(error)


@settings(max_examples=1000, deadline=None)
@given(
    items=st.lists(_LIST_ITEMS, max_size=4),
    after=st.sampled_from(["", "^0.5", "]", "x", ", {"]),
)
@example(items=["{]}"], after="")  # a bracket closed inside a brace
@example(items=["{[]]}"], after="")
@example(items=["{[[]]}"], after="")  # a list inside a list
@example(items=["{[[]}"], after="")
@example(items=["{{}}", "{}"], after="")
@example(items=["{}x", "{}"], after="")  # text after the brace
def test_an_emir_list_reads_as_the_bracket_scan_reads_it(items: list[str], after: str) -> None:
    text = "[" + ", ".join(items) + "]" + after
    for cut in (len(text), len(text) - 1 - len(after)):  # and without its closing bracket
        piece = text[:cut]
        assert _evaluation_list_read(fmt._parse_evaluation_list, piece) == (
            _evaluation_list_read(fmt._scan_evaluation_list, piece)
        )


def test_the_reference_emir_lists_take_the_one_match_reading() -> None:
    """Every semantic list of the reference files is read by the match (else the test above
    would test little)."""
    for path in sorted((DATA / "reference").glob("*/*.emir*.gz")):
        for line in gzip.decompress(path.read_bytes()).decode("latin-1").split("\n"):
            head, marker, rest = line.partition("]::[")
            if marker and not rest.startswith(("Correcto", "Em_Falta", "Espurio", "Parcial")):
                assert fmt._BRACE_LIST_RE.match("[" + rest) is not None, line


@pytest.mark.parametrize(
    ("text", "system", "read"),
    [
        ("[ 8,314 ] K-1 mol-l", True, "8,314  K-1 mol-l"),  # bracket-edges/'s first record
        ("Porto [ Norte ]", True, "Porto  Norte"),
        ("[ 8,314 ] K-1 mol-l", False, "[ 8,314 ] K-1 mol-l"),  # the gold side keeps them
        (" Ana\t", False, "Ana"),  # Java's trim: up to U+0020 at both ends
        ("\u00a0Ana", True, "\u00a0Ana"),  # a no-break space is not trimmed
        ("[ ]", True, ""),
        ("d''Arc ", True, "d'Arc"),
    ],
)
def test_entity_texts_are_read_back_without_brackets_and_trimmed(
    text: str, system: bool, read: str
) -> None:
    assert fmt.java_entity_text(text, system) == read
    assert fmt.java_entity_text(read, system) == read  # what the Java writes it reads alike


def test_a_record_whose_texts_need_only_the_trim_is_read_back_trimmed() -> None:
    """A hand-made record without brackets or '' whose texts have blanks at an edge: the
    whole-line shortcut must not let it through as it is."""
    line = (
        '<EM ID="c1" CATEG="LOCAL">Porto</EM> ---> '
        '[<EM ID="r1" CATEG="LOCAL"> Porto</EM>, <EM ID="r2" CATEG="LOCAL">Gaia </EM>]'
    )
    record = fmt.parse_line(line, None, 1, "\n")
    assert isinstance(record, fmt.Record)
    reread = fmt.reprint_record(record)
    assert [tag.text for tag in reread.system or ()] == ["Porto", "Gaia"]
    plain = fmt.parse_line(line.replace("> Porto", ">Porto").replace("Gaia <", "Gaia<"), None, 1)
    assert isinstance(plain, fmt.Record) and fmt.reprint_record(plain) is plain
