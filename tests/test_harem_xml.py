"""Reading and writing HAREM collections and runs (First and Second HAREM formats)."""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import re
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats import harem_xml as harem_xml_module
from harem_pipeline.formats.harem_meta import parse_meta
from harem_pipeline.formats.harem_xml import format_collection, parse_collection, read_collection
from harem_pipeline.model import Collection, Document, Entity, Morf
from tests.helpers.paths import SHARED_DATA_VARIABLE, shared_data

DATA = Path(__file__).resolve().parent.parent / "data"
SHARED = shared_data()

FIRST_SAMPLE = (
    "<DOC>\r\n<DOCID>HAREM-1</DOCID>\r\n<GENERO>Web</GENERO>\r\n<ORIGEM>PT</ORIGEM>\r\n"
    "<TEXTO>\r\n"
    '<PESSOA TIPO="INDIVIDUAL" MORF="M,S">Ze</PESSOA> foi a '
    '<ALT><LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Vila Real</LOCAL>|Vila '
    '<LOCAL TIPO="ADMINISTRATIVO">Real</LOCAL></ALT> &amp; '
    '<OMITIDO>MORF="?,S"<LOCAL TIPO="ADMINISTRATIVO" MORF="?,S">Paris</LOCAL></OMITIDO>'
    ' com a <COISA|COISA TIPO="CLASSE|OBJECTO">Vespa</COISA|COISA>.\r\n'
    "</TEXTO>\r\n</DOC>\r\n"
)

SECOND_SAMPLE = (
    '<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE colHAREM [\n'
    "<!ELEMENT colHAREM (DOC)*>\n]>\n"
    '<colHAREM versao="teste">\n<DOC DOCID="d1">\n'
    '<P>A <EM ID="d1-1" CATEG="ORGANIZACAO|LOCAL" TIPO="INSTITUICAO|HUMANO">UC</EM> e</P>\n'
    '<OMITIDO><P>Fonte: <EM ID="d1-2" CATEG="LOCAL" TIPO="VIRTUAL" SUBTIPO="SITIO">CMI</EM></P>'
    "</OMITIDO>\n"
    "<OMITIDO>\n<ALT>"
    '<EM ID="d1-3" CATEG="OBRA" TIPO="REPRODUZIDA">Die Aliens</EM> |Die Aliens</ALT> </OMITIDO>\n'
    '<EM ID="d1-4" CATEG="PESSOA">Ana</EM>\n'
    "</DOC>\n</colHAREM>\n"
)


# --- reading: hand-made samples, every offset checked --------------------------------


def test_first_harem_sample_is_read_with_offsets_alt_and_omitido() -> None:
    c = parse_collection(FIRST_SAMPLE, "sample.txt", "iso8859-1")
    assert c.format == "first-harem" and c.newline == "\r\n"
    (doc,) = c.documents
    assert (doc.docid, doc.genre, doc.variant, doc.line) == ("HAREM-1", "Web", "PT", 1)
    # Running text: tags removed, ALT -> first alternative, OMITIDO content kept, &amp; kept.
    assert doc.text == ('\r\nZe foi a Vila Real &amp; MORF="?,S"Paris com a Vespa.\r\n')
    ze, vespa = doc.entities
    assert (ze.text, ze.start, ze.end, ze.tag, ze.morf) == ("Ze", 2, 4, "PESSOA", Morf("M", "S"))
    assert ze.line == 6 and ze.categories == ("PESSOA",) and ze.types == ("INDIVIDUAL",)
    assert vespa.tag == "COISA|COISA"
    assert vespa.categories == ("COISA", "COISA") and vespa.types == ("CLASSE", "OBJECTO")
    assert doc.text[vespa.start : vespa.end] == "Vespa"
    (block,) = doc.alt_blocks
    assert block.alternative_texts == ("Vila Real", "Vila Real")
    assert doc.text[block.start : block.end] == "Vila Real"
    (first,), (second,) = block.alternatives
    assert (first.text, first.start, first.end) == ("Vila Real", 11, 20)
    assert (second.text, second.start, second.end, second.morf) == ("Real", 16, 20, None)
    # The stray MORF="?,S" of the real First HAREM file is text inside OMITIDO.
    (omitted,) = doc.omitted
    assert doc.text[omitted[0] : omitted[1]] == 'MORF="?,S"Paris'
    (paris,) = doc.omitted_entities
    assert paris.text == "Paris" and paris.morf == Morf("?", "S")
    assert len(doc.all_entities) == 5


def test_second_harem_sample_paragraphs_omitido_and_alt_in_omitido() -> None:
    c = parse_collection(SECOND_SAMPLE, "sample.xml", "iso8859-1")
    assert (c.format, c.root, c.version, c.newline) == ("second-harem", "colHAREM", "teste", "\n")
    (doc,) = c.documents
    assert doc.docid == "d1" and doc.line == 6
    uc, ana = doc.entities
    assert (uc.id, uc.categories, uc.types) == (
        "d1-1",
        ("ORGANIZACAO", "LOCAL"),
        ("INSTITUICAO", "HUMANO"),
    )
    assert doc.text[uc.start : uc.end] == "UC" and uc.line == 7
    assert ana.categories == ("PESSOA",) and ana.types == () and ana.subtypes == ()
    (cmi,) = doc.omitted_entities
    assert cmi.subtypes == ("SITIO",)
    (block,) = doc.alt_blocks
    assert block.alternative_texts == ("Die Aliens ", "Die Aliens")
    assert doc.is_omitted(block.start, block.end)
    assert len(doc.omitted) == 2 and len(doc.paragraphs) == 2
    assert [doc.text[s:e] for s, e in doc.paragraphs] == ["A UC e", "Fonte: CMI"]


def test_run_without_root_paragraphs_or_tipo() -> None:
    text = '<DOC DOCID="x">Foi <EM ID="1" CATEG="LOCAL">  Europa </EM>.</DOC>\n'
    c = parse_collection(text, "run.xml", "utf-8")
    (entity,) = c.documents[0].entities
    assert entity.text == "  Europa " and entity.types == ()


def test_angle_bracket_in_attribute_value_and_in_text() -> None:
    # The First HAREM file has "<OMITIDO>></OMITIDO>": a ">" in text is text.
    text = (
        '<colHAREM><DOC DOCID="a"><EM CATEG="LOCAL" COMENT="x>y">Sintra</EM> '
        "<OMITIDO>></OMITIDO></DOC></colHAREM>"
    )
    (doc,) = parse_collection(text, "gt.xml", "utf-8").documents
    assert doc.entities[0].attribute("COMENT") == "x>y"
    assert doc.text == "Sintra >" and doc.omitted == ((7, 8),)


def test_single_quoted_attributes_and_empty_values_are_kept_as_written() -> None:
    text = "<colHAREM><DOC DOCID='a'><EM CATEG='TEMPO' VAL_NORM=\"\">1999</EM></DOC></colHAREM>"
    c = parse_collection(text, "q.xml", "utf-8")
    (entity,) = c.documents[0].entities
    assert entity.attributes == (("CATEG", "TEMPO"), ("VAL_NORM", ""))
    assert parse_collection(format_collection(c), "q.xml", "utf-8") == c


def test_meta_gives_second_harem_documents_variant_and_genre() -> None:
    c = read_collection(
        DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
        DATA / "lampada2" / "colSegundoHAREM-meta.xml.gz",
    )
    doc = c.document("H2-dftre765")
    # colSegundoHAREM-meta.xml: <DOC DOCID="H2-dftre765"><VARIANTE>pt_PT</VARIANTE>
    # <TIPO_TEXTO>didáctico</TIPO_TEXTO>
    assert doc is not None and (doc.variant, doc.genre) == ("pt_PT", "didáctico")
    assert sum(1 for d in c.documents if d.variant is None) == 0


def test_meta_with_two_genres_joins_them() -> None:
    meta = parse_meta(
        '<colHAREMmeta><DOC DOCID="a"><VARIANTE>pt_PT</VARIANTE><LISTA-TIPO_TEXTO>'
        "<TIPO_TEXTO>blogue pessoal</TIPO_TEXTO><TIPO_TEXTO>didáctico</TIPO_TEXTO>"
        "</LISTA-TIPO_TEXTO></DOC></colHAREMmeta>",
        "meta.xml",
    )
    assert meta == {"a": ("pt_PT", "blogue pessoal|didáctico")}


# --- every real file reads, and writes back to an equal model -------------------------


def _shipped_files() -> list[Path]:
    files = [DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"]
    files += sorted((DATA / "second-harem").glob("*.xml.gz"))
    files += [DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz"]
    files += sorted((DATA / "lampada2").glob("exemplo*/*.xml"))
    return files


def _shared_files() -> list[Path]:
    files = sorted((SHARED / "lampada2" / "coleccoes").glob("*.xml"))
    files = [f for f in files if "meta" not in f.name]
    files += [SHARED / "first-harem" / "ColeccaoDouradaHAREM.txt"]
    files += sorted((SHARED / "second-harem-run").glob("*.xml"))
    files += sorted((SHARED / "lampada2" / "exemplos").glob("*/*.xml"))
    return files


def _assert_entities_pass_their_checks(collection: Collection) -> None:
    """The reader builds entities without ``Entity``'s checks: built with them, they are equal."""
    for doc in collection.documents:
        for entity in doc.all_entities:
            values = [getattr(entity, f.name) for f in dataclasses.fields(Entity)]
            checked = Entity(*values)
            assert checked == entity, entity
            assert (checked.line, hash(checked)) == (entity.line, hash(entity))


def _check_reads_and_round_trips(path: Path) -> None:
    collection = read_collection(path)
    assert collection.documents, path
    _assert_entities_pass_their_checks(collection)
    written = format_collection(collection)
    again = parse_collection(written, collection.path, collection.encoding)
    assert again == collection, path
    assert format_collection(again) == written, path


@pytest.mark.parametrize("path", _shipped_files(), ids=lambda p: p.name)
def test_every_shipped_file_reads_and_round_trips(path: Path) -> None:
    _check_reads_and_round_trips(path)


@pytest.mark.skipif(
    not SHARED.is_dir(),
    reason=f"the full HAREM data folder is not present ({SHARED}; set ${SHARED_DATA_VARIABLE})",
)
def test_every_shared_file_reads_and_round_trips() -> None:
    files = _shared_files()
    assert len(files) >= 17
    # A file with the same content as a shipped one is already checked by
    # test_every_shipped_file_reads_and_round_trips.
    shipped = {_content_digest(path) for path in _shipped_files()}
    for path in files:
        if _content_digest(path) not in shipped:
            _check_reads_and_round_trips(path)


def _content_digest(path: Path) -> str:
    data = path.read_bytes()
    return hashlib.sha256(gzip.decompress(data) if path.suffix == ".gz" else data).hexdigest()


def test_first_harem_write_back_differs_only_by_whitespace_outside_texto() -> None:
    path = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"
    original = path.read_bytes().decode("iso8859-1")
    written = format_collection(read_collection(path))
    # Outside <TEXTO>, the original has trailing blanks after some structural tags
    # ("<ORIGEM>PT</ORIGEM> ", "</DOC>              ") and a final "\t\r\n"; the
    # writer drops them.  Inside <TEXTO> every character is reproduced.
    structural = r"(</?DOC>|</TEXTO>|<(DOCID|GENERO|ORIGEM)>[^<\r\n]*</\2>)[ \t]+(?=\r\n)"
    expected = re.sub(structural, r"\1", original).removesuffix("\t\r\n")
    assert written == expected


def test_first_harem_real_oddities() -> None:
    c = read_collection(DATA / "first-harem" / "ColeccaoDouradaHAREM.txt")
    omitted = {d.docid: [d.text[s:e] for s, e in d.omitted] for d in c.documents}
    # Stray attribute text inside an OMITIDO, and an OMITIDO holding only ">".
    assert omitted["HAREM-569-05069"] == ['MORF="?,S"Paris']
    assert omitted["HAREM-65A-04177"] == [">"]
    # An ALT whose alternatives differ in spacing: the running text follows the
    # first, and the second's entities are placed in the second's own text, so
    # "dezembro" ends one character past the block.
    doc = c.document("HAREM-27A-01056")
    assert doc is not None
    (block,) = [b for b in doc.alt_blocks if "dezembro" in b.alternative_texts[0]]
    assert block.alternative_texts == (" novembro/dezembro ", " novembro / dezembro")
    novembro, dezembro = block.alternatives[1]
    local = dezembro.start - block.start
    assert block.alternative_texts[1][local : local + len(dezembro.text)] == "dezembro"
    assert dezembro.end == block.end + 1 and novembro.morf == Morf("M", "S")


def test_gzip_and_plain_files_give_the_same_model(tmp_path: Path) -> None:
    source = DATA / "lampada2" / "exemplo0" / "cd.xml"
    packed = tmp_path / "cd.xml.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    assert read_collection(packed).documents == read_collection(source).documents


def test_lf_and_crlf_files_give_the_same_entities(tmp_path: Path) -> None:
    lf = tmp_path / "lf.txt"
    lf.write_bytes(FIRST_SAMPLE.replace("\r\n", "\n").encode("iso8859-1"))
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(FIRST_SAMPLE.encode("iso8859-1"))
    a, b = read_collection(lf), read_collection(crlf)
    assert (a.newline, b.newline) == ("\n", "\r\n")
    assert [e.text for e in a.documents[0].all_entities] == [
        e.text for e in b.documents[0].all_entities
    ]
    assert format_collection(a).count("\r") == 0


def test_utf8_file_is_detected_and_written_with_its_declaration(tmp_path: Path) -> None:
    path = tmp_path / "u.xml"
    path.write_bytes(
        '<colHAREM><DOC DOCID="a"><EM CATEG="LOCAL">Évora</EM></DOC></colHAREM>'.encode()
    )
    c = read_collection(path)
    assert c.encoding == "utf-8" and c.documents[0].entities[0].text == "Évora"
    assert format_collection(c).startswith('<?xml version="1.0" encoding="UTF-8"?>')


# --- property: generated documents survive parse(format(parse(markup))) --------------

_TEXT = st.text(alphabet="ab çã&;.\n", max_size=6)
_CATEGORIES = st.sampled_from(["PESSOA", "LOCAL", "PESSOA|ORGANIZACAO"])
_MORF = st.sampled_from(["", ' MORF="M,S"', ' MORF="?,P"'])


@st.composite
def _entity(draw: st.DrawFn, first: bool) -> str:
    category = draw(_CATEGORIES)
    body = draw(_TEXT)
    morf = draw(_MORF)
    if first:
        return f'<{category} TIPO="T"{morf}>{body}</{category}>'
    ident = draw(st.integers(0, 99))
    return f'<EM ID="e{ident}" CATEG="{category}"{morf}>{body}</EM>'


def _inline(first: bool) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(_TEXT, _entity(first)), max_size=4).map("".join)


def _alt(first: bool) -> st.SearchStrategy[str]:
    alternatives = st.lists(_inline(first), min_size=2, max_size=3)
    return alternatives.map(lambda alts: "<ALT>" + "|".join(alts) + "</ALT>")


def _omitido(first: bool) -> st.SearchStrategy[str]:
    items = st.lists(st.one_of(_TEXT, _entity(first), _alt(first)), max_size=3)
    return items.map(lambda parts: "<OMITIDO>" + "".join(parts) + "</OMITIDO>")


@functools.cache  # built once per format: the values drawn are the same, at less cost
def _body(first: bool) -> st.SearchStrategy[str]:
    item = st.one_of(_TEXT, _entity(first), _alt(first), _omitido(first))
    if not first:
        paragraph = st.lists(item, max_size=3).map(lambda p: "<P>" + "".join(p) + "</P>")
        item = st.one_of(item, paragraph)
    return st.lists(item, max_size=5).map("".join)


@functools.cache
def _bodies(first: bool) -> st.SearchStrategy[list[str]]:
    return st.lists(_body(first), min_size=1, max_size=3)


@st.composite
def _collection_text(draw: st.DrawFn) -> str:
    first = draw(st.booleans())
    bodies = draw(_bodies(first))
    if first:
        return "".join(
            f"<DOC>\n<DOCID>D{i}</DOCID>\n<ORIGEM>BR</ORIGEM>\n<TEXTO>{b}</TEXTO>\n</DOC>\n"
            for i, b in enumerate(bodies)
        )
    docs = "".join(f'<DOC DOCID="D{i}">{b}</DOC>\n' for i, b in enumerate(bodies))
    return f'<colHAREM versao="v">\n{docs}</colHAREM>\n'


@settings(derandomize=True, deadline=None, max_examples=150)
@given(_collection_text())
def test_parse_format_round_trip_on_generated_collections(markup: str) -> None:
    collection = parse_collection(markup, "gen.xml", "utf-8")
    _assert_entities_pass_their_checks(collection)
    written = format_collection(collection)
    again = parse_collection(written, "gen.xml", "utf-8")
    assert again == collection
    assert format_collection(again) == written
    # Every entity tag of the markup is in the model exactly once.
    closing = "</EM>" if collection.format == "second-harem" else None
    tags = (
        markup.count(closing)
        if closing
        else sum(markup.count(f"</{c}>") for c in ("PESSOA", "LOCAL", "PESSOA|ORGANIZACAO"))
    )
    assert sum(len(d.all_entities) for d in collection.documents) == tags
    assert sum(len(d.alt_blocks) for d in collection.documents) == markup.count("<ALT>")


@st.composite
def _built_collection(draw: st.DrawFn) -> Collection:
    """A collection built in code the way a run generator does: entities on word spans."""
    first = draw(st.booleans())
    documents = []
    for number in range(draw(st.integers(1, 3))):
        words = draw(st.lists(st.sampled_from(["Ana", "Porto", "de", "&amp;", "\n"]), max_size=8))
        text, spans, pos = "", [], 0
        for word in words:
            spans.append((pos + 1, pos + 1 + len(word)))
            text += " " + word
            pos = len(text)
        chosen = [span for span in spans if draw(st.booleans())]
        entities = []
        for index, (start, end) in enumerate(chosen):
            categories = draw(st.sampled_from([("PESSOA",), ("LOCAL", "ORGANIZACAO")]))
            morf = draw(st.sampled_from([None, Morf("F", "S"), Morf("?", "P")]))
            if first:
                attributes = (("TIPO", "T"),) + ((("MORF", str(morf)),) if morf else ())
                tag = "|".join(categories)
                entity = Entity(
                    None, categories, ("T",), (), morf, text[start:end], start, end, attributes, tag
                )
            else:
                entity = Entity(
                    f"D{number}-{index}", categories, ("T",), (), morf, text[start:end], start, end
                )
            entities.append(entity)
        # Only the First HAREM format stores the variant in the file (ORIGEM); the
        # Second HAREM one keeps it in the separate metadata file.
        variant = "BR" if first else None
        documents.append(Document(f"D{number}", text, tuple(entities), variant=variant))
    fmt = "first-harem" if first else "second-harem"
    return Collection("built.xml", fmt, "utf-8", tuple(documents))


@settings(derandomize=True, deadline=None, max_examples=100)
@given(_built_collection())
def test_collections_built_in_code_survive_format_then_parse(collection: Collection) -> None:
    written = format_collection(collection)
    assert parse_collection(written, "built.xml", "utf-8") == collection


# --- bad input: one-line InputError through the library and exit 2 through the CLI ---

BAD_INPUTS = {
    "unclosed.txt": (
        b'<DOC>\r\n<DOCID>D1</DOCID>\r\n<TEXTO>\r\nO <LOCAL TIPO="X">Porto\r\n'
        b"</TEXTO>\r\n</DOC>\r\n",
        "unclosed.txt, line 5, document D1: expected </LOCAL> (opened line 4), found </TEXTO>",
    ),
    "crossing.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\n<P>a <EM CATEG="LOCAL">b</P></EM>\n</DOC></colHAREM>\n',
        "crossing.xml, line 3, document d: expected </EM> (opened line 3), found </P>",
    ),
    "nested.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\n<EM CATEG="A">b <EM CATEG="B">c</EM></EM>\n'
        b"</DOC></colHAREM>",
        'nested.xml, line 3, document d: expected text only inside entity <EM CATEG="A">, '
        'found <EM CATEG="B">',
    ),
    "morf.txt": (
        b'<DOC>\n<DOCID>D1</DOCID>\n<TEXTO>\n<PESSOA TIPO="I" MORF="X,Y">Ana</PESSOA>\n'
        b"</TEXTO>\n</DOC>\n",
        'morf.txt, line 4, document D1: expected MORF="G,N" with G in M,F,? and N in S,P,?, '
        'found MORF="X,Y"',
    ),
    "alt.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\n<ALT><EM CATEG="LOCAL">b</EM></ALT>\n</DOC></colHAREM>\n',
        "alt.xml, line 3, document d: expected '|' between ALT alternatives, "
        "found an ALT without '|'",
    ),
    "encoding.xml": (
        b'<?xml version="1.0" encoding="KLINGON-8"?>\n<colHAREM></colHAREM>\n',
        "encoding.xml: expected a known encoding in the XML declaration, found KLINGON-8",
    ),
    "bytes.xml": (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<colHAREM><DOC DOCID="d">caf\xe9</DOC>'
        b"</colHAREM>\n",
        "bytes.xml, line 2: expected text in utf-8, found undecodable byte 0xe9",
    ),
    "empty.xml": (b"", "empty.xml: expected a HAREM collection, found an empty file"),
    "eof.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\n<EM CATEG="LOCAL">b\n',
        "eof.xml, line 4, document d: expected </EM> for the tag opened line 3, found end of file",
    ),
    "unknown.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\n<B>b</B>\n</DOC></colHAREM>\n',
        "unknown.xml, line 3, document d: expected EM, ALT, OMITIDO or P, found <B>",
    ),
    "twice.xml": (
        b'<colHAREM>\n<DOC DOCID="d"></DOC>\n<DOC DOCID="d"></DOC></colHAREM>\n',
        "twice.xml, line 3, document d: expected a DOCID used once, found d again",
    ),
    "nodocid.txt": (
        b"<DOC>\n<TEXTO>x</TEXTO>\n</DOC>\n",
        "nodocid.txt, line 1: expected a <DOCID>, found a document without one",
    ),
    "badtag.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\n<EM CATEG=LOCAL>b</EM>\n</DOC></colHAREM>\n',
        "badtag.xml, line 3: expected a well-formed tag, found <EM CATEG=LOCAL>",
    ),
    "junk.xml": (
        b'<colHAREM>\n<DOC DOCID="a">x</DOC>\njunk\n<DOC DOCID="b">y</DOC></colHAREM>\n',
        'junk.xml, line 3: expected only tags between documents, found junk <DOC DOCID="b">y</DOC>'
        "</colHAREM>",
    ),
    "twice.txt": (
        b"<DOC>\n<DOCID>A</DOCID>\n<TEXTO>x</TEXTO>\n</DOC>\n"
        b"<DOC>\n<DOCID>A</DOCID>\n<TEXTO>y</TEXTO>\n</DOC>\n",
        "twice.txt, line 5, document A: expected a DOCID used once, found A again",
    ),
    "stray.xml": (
        b'<colHAREM>\n<DOC DOCID="d">\na < b\n</DOC></colHAREM>\n',
        "stray.xml, line 3: expected a tag after '<', found < b </DOC></colHAREM>",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_raises_one_line_input_error(name: str, tmp_path: Path) -> None:
    data, message = BAD_INPUTS[name]
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as exc:
        read_collection(path)
    assert str(exc.value) == f"{tmp_path}/{message}"


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_through_stats_exits_2_with_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, message = BAD_INPUTS[name]
    path = tmp_path / name
    path.write_bytes(data)
    assert main(["stats", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"harem stats: error: {tmp_path}/{message}\n"
    assert "Traceback" not in captured.err


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_collection(tmp_path / "absent.xml")


# ---------------------------------------------------------------------------
# Reading in chunks gives what reading the whole text gives


_TRICKY_MARKUP = (
    '<?xml version="1.0"?>\n<!DOCTYPE colHAREM [ <!ELEMENT P (#PCDATA)> ]>\n'
    '<!-- a comment with <b> and > inside -->\n<colHAREM versao="v1">\n'
    '<DOC DOCID="d1"><P>O <EM ID="e1" CATEG="LOCAL"\nTIPO="HUMANO">Porto</EM> &amp; '
    '<ALT><EM ID="e2" CATEG="PESSOA">Rui</EM> Vaz|Rui Vaz</ALT>'
    '<?pi with <?> <OMITIDO>x <EM ID="e3" CATEG="LOCAL">Braga</EM></OMITIDO>.</P>'
    '</DOC>\n<DOC DOCID="d2"><P/><P>a > b</P></DOC>\n</colHAREM>\n'
)


def _in_chunks(text: str, size: int, read_size: int) -> tuple:
    from harem_pipeline.formats.harem_xml import _open_stream

    chunks = (text[i : i + size] for i in range(0, len(text), size))
    stream = _open_stream(chunks, "x.xml", "utf-8", None, read_size)
    return tuple(stream.documents), stream.newline(), stream.root or "colHAREM", stream.version


def _outcome(read) -> object:
    try:
        return read()
    except InputError as exc:
        return str(exc)


_READ_TEXTS = (
    _TRICKY_MARKUP,
    FIRST_SAMPLE,
    SECOND_SAMPLE,
    _TRICKY_MARKUP.replace("</colHAREM>", ""),
    _TRICKY_MARKUP[: len(_TRICKY_MARKUP) // 2],
    "  \n ",
)
"""Texts both the chunked reader and the cut are held to the whole reader on."""


def _text_id(value: object) -> str | None:
    """A short test id for a text parameter."""
    return f"{zlib.crc32(value.encode()):08x}" if isinstance(value, str) else None


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 64])
@pytest.mark.parametrize(
    "text",
    [
        *_READ_TEXTS,
        _TRICKY_MARKUP.replace("Porto</EM>", "Porto</EX>"),
        _TRICKY_MARKUP.replace("a > b", "a < b"),
        _TRICKY_MARKUP.replace("<!-- a", "<!-- never closed a"),
        _TRICKY_MARKUP.replace(" &amp; ", " \n  junk"),
        "<!-- only -->",
    ],
    ids=_text_id,
)
def test_reading_in_chunks_equals_reading_the_whole_text(text: str, size: int) -> None:
    def whole() -> tuple:
        c = parse_collection(text, "x.xml", "utf-8")
        return c.documents, c.newline, c.root, c.version

    assert _outcome(lambda: _in_chunks(text, size, size)) == _outcome(whole)


def test_open_collection_streams_the_shipped_files() -> None:
    from harem_pipeline.formats.harem_xml import open_collection

    for path in (
        DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
        DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
    ):
        whole = read_collection(path)
        stream = open_collection(path)
        assert tuple(stream.documents) == whole.documents
        assert (stream.format, stream.encoding, stream.newline()) == (
            whole.format,
            whole.encoding,
            whole.newline,
        )


# ---------------------------------------------------------------------------
# Documents cut as written and read one by one: open_collection's, or an InputError


def _cut_and_read(path: Path) -> tuple:
    from harem_pipeline.formats.harem_xml import cut_collection, read_document

    cut = cut_collection(path)
    return cut.format, tuple(read_document(piece) for piece in cut.documents)


def test_documents_cut_and_read_are_those_of_the_collection_reader() -> None:
    from harem_pipeline.formats.harem_xml import open_collection

    for path in (
        DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
        DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz",
        DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
        DATA / "lampada2" / "exemplo1" / "CDexemplo.xml",
    ):
        stream = open_collection(path)
        documents = tuple(stream.documents)
        cut = _cut_and_read(path)
        assert cut == (stream.format, documents)
        assert [d.line for d in cut[1]] == [d.line for d in documents]


@pytest.mark.parametrize("size", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize(
    "text",
    [
        *_READ_TEXTS,
        FIRST_SAMPLE + FIRST_SAMPLE.replace("HAREM-1", "HAREM-2"),
        _TRICKY_MARKUP.replace("</DOC>\n<DOC", '</DOC><!-- <DOC DOCID="d9"> -->\n<DOC'),
        _TRICKY_MARKUP.replace(" &amp; ", ' <!-- </DOC><DOC DOCID="d9"> --> '),
        _TRICKY_MARKUP.replace("</DOC>\n<DOC", "</DOC>junk<DOC"),
        _TRICKY_MARKUP.replace("</DOC>\n<DOC", '</DOC><!-- > <DOC DOCID="d9"></DOC><!-- -->\n<DOC'),
        _TRICKY_MARKUP.replace("<colHAREM", '<!-- > <DOC DOCID="d9"></DOC><!-- -->\n<colHAREM'),
        _TRICKY_MARKUP.replace('"d2"', '"d1"'),
        _TRICKY_MARKUP.replace('DOCID="d2"', 'DOCID = "d2"'),
        _TRICKY_MARKUP.replace("</colHAREM>", "</colHAREM><!-- <DOC -->x"),
        _TRICKY_MARKUP.replace("</colHAREM>", "</colHAREM><DOC DOCID='d3'></DOC>"),
        _TRICKY_MARKUP.replace("<colHAREM", "<colHAREM><P"),
        '<colHAREM><DOC DOCID="a"></DOC><DOC DOCID="b"><P>x</P>',
        "<colHAREM></colHAREM>",
    ],
    ids=_text_id,
)
def test_a_cut_reads_as_the_collection_reader_or_fails(
    text: str, size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wherever the cut goes wrong, reading fails; where it does not, the documents are the
    collection reader's (a failure is then read again by it, which names the fault)."""
    from harem_pipeline.formats import harem_xml

    monkeypatch.setattr(harem_xml, "_CHUNK", size)
    path = tmp_path / "x.xml"
    path.write_text(text, "utf-8")
    try:
        cut = _cut_and_read(path)
    except InputError:
        return
    whole = parse_collection(text, str(path), "utf-8")
    assert cut == (whole.format, whole.documents)


def _token_by_token(self, run) -> None:  # type: ignore[no-untyped-def]
    """``_Builder.run`` with no run read at once: its tags and texts one by one."""
    for token in self.source.run_tokens(run):
        if isinstance(token, harem_xml_module._Text):
            self.add_text(token.text)
        elif token.closing:
            self.close(token)
        else:
            self.open(token)


@pytest.mark.parametrize("entities", [True, False])
def test_runs_read_at_once_are_their_tokens_read_one_by_one(
    entities: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Elements of text alone read a run at a time (in ALT blocks too) give the documents
    reading their tags one by one gives, and the same errors."""
    texts = [
        _TRICKY_MARKUP,
        FIRST_SAMPLE,
        SECOND_SAMPLE,
        _TRICKY_MARKUP.replace("Vaz|Rui Vaz", 'Vaz|Rui\n<EM ID="e4" CATEG="X">Vaz</EM> | x|y'),
        _TRICKY_MARKUP.replace('<EM ID="e2"', '<EM ID="e2" MORF="Q,S"'),
        _TRICKY_MARKUP.replace("Vaz|Rui Vaz", '<EM ID="e5" CATEG="A">a|b</EM>|<EM CATEG="B"></EM>'),
    ]
    for path in (
        DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
        DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
    ):
        raw = path.read_bytes()
        texts.append((gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("latin-1"))

    def read(text: str) -> object:
        try:
            stream = harem_xml_module._open_stream(
                iter((text,)), "x.xml", "latin-1", None, entities=entities
            )
            return tuple(stream.documents)
        except InputError as error:
            return str(error)

    at_once = [read(text) for text in texts]
    monkeypatch.setattr(harem_xml_module._Builder, "run", _token_by_token)
    assert [read(text) for text in texts] == at_once
