"""ReRelEM (docs/spec/rerelem.md): every step against the official programs' outputs.

References (``data/reference/rerelem``, see ``data/README.md``):

* ``shipped/`` — the public repository's whole chain for the real Second
  HAREM run (scenario ``todas``), and the official summaries of the four
  other relation scenarios on the same triples;
* ``cenario5/`` — the official programs on the same run under the NER veil
  ``cenario5`` (``LOCAL(FISICO{*};HUMANO{*})``): every step, every scenario
  (``ident`` and ``localizacao`` have no relation and print NaN).

Hand-made documents check each transitive rule, each quirk and its
correction, and the bad inputs.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.measures.resampling import Resampling
from harem_pipeline.pipeline import rerelem as steps
from harem_pipeline.stages.rerelem.relations import Rel, relation_hash, transitive_relation
from harem_pipeline.stages.rerelem.scoring import SCENARIOS, evaluate_document, parse_triple
from harem_pipeline.text.java import JavaHashMap, JavaHashSet, string_hash
from tests.helpers.paths import DATA

REFERENCE = DATA / "reference" / "rerelem"
SHIPPED = REFERENCE / "shipped"
CENARIO5 = REFERENCE / "cenario5"
SHIPPED_ALTS = DATA / "reference" / "gabriel" / "cenario4_categs_muc.veu.alts.gz"
RUN_T2 = DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM.xml.gz"
RUN_T1 = DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
TYPES = steps.relation_types()


def compared(path: Path) -> list[bytes]:
    """A file's lines as the acceptance compares them: ``#`` lines dropped, ``]::[`` as ``]:[``."""
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    lines = data.replace(b"]::[", b"]:[").split(b"\n")
    return [line for line in lines if not line.startswith(b"#")]


def unzipped(source: Path, target: Path) -> Path:
    target.write_bytes(gzip.decompress(source.read_bytes()))
    return target


# ---------------------------------------------------------------------------
# Java hash order


def test_relation_hash_is_javas() -> None:
    # values printed by Java 17 for new Relation(type, a, b).hashCode()
    assert relation_hash(Rel("H2-a-1 LOCAL", "H2-a-2 PESSOA", "ident")) == 966737816
    assert relation_hash(Rel("x", "y", "sede_de")) == 1970856811
    assert relation_hash(Rel("H2-dftre765-37 LOCAL", "H2-dftre765-9 LOCAL", "inclui")) == -792809954


def test_hash_set_and_sized_map_iterate_as_java() -> None:
    keys = JavaHashSet(string_hash)
    for i in range(40):
        keys.add(f"k{i * 7919 % 1000}")
    # Java 17: a HashSet<String> of the same 40 adds, printed with String.join
    java = (
        "k947,k408,k704,k190,k56,k380,k165,k461,k785,k246,k542,k489,k841,k866,k327,k623,k109,"
        "k922,k838,k0,k84,k919,k3,k271,k28,k570,k352,k299,k651,k595,k433,k894,k732,k676,k137,"
        "k514,k975,k813,k757,k218"
    )
    assert ",".join(keys) == java
    facets: JavaHashMap[str, int] = JavaHashMap(string_hash, 3)  # new HashMap(3)
    for value, key in enumerate(("ID LOCAL", "ID PESSOA", "ID ORGANIZACAO")):
        facets.put(key, value)
    assert facets.keys() == ["ID PESSOA", "ID ORGANIZACAO", "ID LOCAL"]


TREE_KEYS = (
    "e0,e32,e1,e2,e3,e76,e4,e5,e6,e121,e7,e8,e9,e165,e10,e11,e12,e242,e13,e14,e15,e286,e16,e17,"
    "e18,e363,e19,e20,e21,e440,e22,e23,e24,e484,e25,e26,e27,e561,e28,e29,e30,e682,e31,e33,e34,e"
    "880,e35,e36,e37,e1032,e38,e39,e40,e1076,e41,e42,e43,e44,e45,e46,e47,e48,e49,e50"
)
"""64 keys, 14 of them in one bucket (``spread & 127 == 5``): a tree bin in Java 8."""
TREE_ORDER = (
    "e31,e30,e33,e165,e32,e76,e121,e242,e286,e363,e440,e484,e561,e682,e880,e1032,e1076,e35,e34,"
    "e37,e36,e39,e38,e40,e42,e41,e44,e43,e46,e45,e48,e47,e49,e50,e11,e10,e13,e12,e15,e14,e17,e1"
    "6,e19,e18,e20,e22,e21,e24,e23,e26,e25,e28,e0,e27,e1,e2,e29,e3,e4,e5,e6,e7,e8,e9"
)
"""Java 17's iteration of a ``HashSet<String>`` fed ``TREE_KEYS`` in order."""


def test_a_long_chain_becomes_a_tree_bin_as_in_java() -> None:
    # the shipped run's retyped variant has such a bin (9 relations of one node in
    # one bucket of 64); Java moves the tree's root to the front of the bin
    keys = JavaHashSet(string_hash)
    for key in TREE_KEYS.split(","):
        keys.add(key)
    assert ",".join(keys) == TREE_ORDER


# ---------------------------------------------------------------------------
# The shipped chain, step by step


def test_expand_equals_the_shipped_expandido(tmp_path: Path) -> None:
    alts = unzipped(SHIPPED_ALTS, tmp_path / "x.alts")
    result = steps.run_expand(alts)
    assert compared(result.output) == compared(SHIPPED / "todas.expandido.gz")


@pytest.mark.parametrize(
    ("step", "source", "reference"),
    [
        (steps.run_select, "todas.expandido.gz", "todas.selec.gz"),
        (steps.run_normalize, "todas.selec.gz", "todas.normalizado.gz"),
        (steps.run_triples, "todas.normalizado.gz", "todas.triplas.gz"),
        (steps.run_filter, "todas.triplas.gz", "todas.filtrado.gz"),
        (steps.run_evaluate, "todas.filtrado.gz", "todas.avaliado.gz"),
        (steps.run_summary, "todas.avaliado.gz", "todas.resumo"),
    ],
)
def test_each_step_equals_the_shipped_file(
    tmp_path: Path, step, source: str, reference: str
) -> None:
    result = step(SHIPPED / source, tmp_path / "out")
    assert compared(result.output) == compared(SHIPPED / reference)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_every_scenario_of_the_shipped_run(tmp_path: Path, scenario: str) -> None:
    filtered = steps.run_filter(
        SHIPPED / "todas.triplas.gz", tmp_path / "f", steps.scenario_filter(scenario, None)
    )
    summary = steps.run_summary(steps.run_evaluate(filtered.output).output).output
    assert compared(summary) == compared(SHIPPED / f"{scenario}.resumo")


def test_the_shipped_summary_json_holds_every_figure(tmp_path: Path) -> None:
    steps.run_summary(SHIPPED / "todas.avaliado.gz", tmp_path / "x.resumo")
    report = json.loads((tmp_path / "x.resumo.json").read_text())
    assert report["relations"] == {
        "gold": 11387,
        "identified": 63,
        "correct": 42,
        "spurious": 21,
        "missing": 11345,
        "precision": 0.6666666666666666,
        "recall": 0.0036884166154386583,
        "f": 0.007336244541484717,
    }
    assert report["corels"]["correct"] == 46
    assert report["score"]["system"] == 40.59999999999999
    documents = report["documents"]
    assert sum(d["rels_gold"] for d in documents.values()) == 11387
    assert sum(d["correct"] for d in documents.values()) == 42


# ---------------------------------------------------------------------------
# The cenario5 NER veil: the whole chain, every relation scenario


def test_the_whole_chain_under_cenario5(tmp_path: Path) -> None:
    alts = unzipped(CENARIO5 / "cenario5.alts.gz", tmp_path / "x.alts")
    result = steps.run_chain(alts)
    base = str(alts)
    for suffix, reference in (
        (".expandido", "cenario5.expandido.gz"),
        (".expandido.selec", "cenario5.selec.gz"),
        (".expandido.selec.normalizado", "cenario5.normalizado.gz"),
        (".expandido.selec.normalizado.triplas", "cenario5.triplas.gz"),
    ):
        assert compared(Path(base + suffix)) == compared(CENARIO5 / reference), suffix
    for scenario, summary in result.summaries.items():
        filtered = Path(str(result.triples) + f".{scenario}.filtrado")
        assert compared(filtered) == compared(CENARIO5 / f"{scenario}.filtrado.gz")
        evaluated = Path(str(filtered) + ".avaliado")
        assert compared(evaluated) == compared(CENARIO5 / f"{scenario}.avaliado.gz")
        assert compared(summary) == compared(CENARIO5 / f"{scenario}.resumo")


def test_a_scenario_with_no_relation_prints_nan(tmp_path: Path) -> None:
    # cenario5 localizacao: no relation on either side, every ratio 0/0
    out = steps.run_summary(CENARIO5 / "localizacao.avaliado.gz", tmp_path / "x.resumo").output
    text = out.read_text(encoding="iso-8859-1")
    assert "Total na CD: 0\nTotal identificadas: 0" in text
    assert text.count("Medida F: NaN") == 3 and text.count("Abrangência: NaN") == 3
    assert "Pontuação na CD: 0.0" in text
    report = json.loads((tmp_path / "x.resumo.json").read_text())
    assert report["relations"]["precision"] == "NaN"
    assert report["score"]["f"] == "NaN"
    # cenario5 ident: golden relations but no system one, P and F NaN, R 0.0
    out = steps.run_summary(CENARIO5 / "ident.avaliado.gz", tmp_path / "y.resumo").output
    text = out.read_text(encoding="iso-8859-1")
    assert "Total na CD: 252\nTotal identificadas: 0" in text
    assert text.count("Precisão: NaN\nAbrangência: 0.0\nMedida F: NaN") == 3


# ---------------------------------------------------------------------------
# Conversion t2 -> t1


def test_convert_gives_the_official_t1_run_byte_for_byte(tmp_path: Path) -> None:
    source = unzipped(RUN_T2, tmp_path / "run.xml")
    assert main(["rerelem", "convert", str(source)]) == 0
    assert (tmp_path / "run_t1.xml").read_bytes() == gzip.decompress(RUN_T1.read_bytes())


def test_convert_t1_items_take_the_categories() -> None:
    from harem_pipeline.stages.rerelem.convert import convert_t2_to_t1

    xml = (
        "<?xml version='1.0' encoding='ISO-8859-1'?>\n<DOC>"
        '<EM ID="a" CATEG="LOCAL|LOCAL">A</EM> <EM ID="b" CATEG="PESSOA">B</EM> '
        '<EM ID="c" COREL="a b z" TIPOREL="ident LOCAL**inclui**a**LOCAL outra">C</EM></DOC>\n'
    ).encode("iso-8859-1")
    out = convert_t2_to_t1(xml, "x.xml", []).decode("iso-8859-1")
    assert out.startswith('<?xml version="1.0" encoding="ISO-8859-1"?>\r\n')
    assert out.endswith("</DOC>\r\n\n")
    assert (
        '<EM ID="c" COREL="a a z" TIPOREL="ident inclui outra" '
        'FACS_ORIGEM="EM LOCAL EM" FACS_ALVO="LOCAL LOCAL null">C</EM>'
    ) in out


# ---------------------------------------------------------------------------
# Transitive rules, by hand


@pytest.mark.parametrize(
    ("r1", "r2", "expected"),
    [
        # Rule1: ident(A,B), ident(A,C) -> ident(B,C); ident(A,B), ident(B,C) -> ident(A,C)
        (Rel("A", "B", "ident"), Rel("A", "C", "ident"), Rel("B", "C", "ident")),
        (Rel("A", "B", "ident"), Rel("B", "C", "ident"), Rel("A", "C", "ident")),
        (Rel("A", "B", "ident"), Rel("C", "B", "ident"), Rel("A", "C", "ident")),
        # Rule23: inclui(A,B), inclui(B,C) -> inclui(A,C); incluido chains too
        (Rel("A", "B", "inclui"), Rel("B", "C", "inclui"), Rel("A", "C", "inclui")),
        (Rel("B", "C", "inclui"), Rel("A", "B", "inclui"), Rel("A", "C", "inclui")),
        (Rel("A", "B", "incluido"), Rel("B", "C", "incluido"), Rel("A", "C", "incluido")),
        # Rule89: inclui(A,B), sede_de(B,C) -> sede_de(A,C); only inclui and sede_de order
        (Rel("A", "B", "inclui"), Rel("B", "C", "sede_de"), Rel("A", "C", "sede_de")),
        (Rel("A", "B", "incluido"), Rel("B", "C", "ocorre_em"), None),
        # Rule1011: ident(A,B) with any relation of B -> that relation from A
        (Rel("A", "B", "ident"), Rel("B", "C", "natural_de"), Rel("A", "C", "natural_de")),
        (Rel("C", "A", "autor_de"), Rel("A", "B", "ident"), Rel("C", "B", "autor_de")),
        # nothing shared, nothing derived
        (Rel("A", "B", "ident"), Rel("C", "D", "ident"), None),
        (Rel("A", "B", "natural_de"), Rel("B", "C", "vinculo_inst"), None),
    ],
)
def test_transitive_rules(r1: Rel, r2: Rel, expected: Rel | None) -> None:
    assert transitive_relation(r1, r2, TYPES) == expected


HEADER = "#LOCAL:PESSOA:ORGANIZACAO"


def _alts(tmp_path: Path, *records: str, header: str = HEADER) -> Path:
    body = "\n".join([header, "DOC d1", *records, "EOD", ""])
    path = tmp_path / "d.alts"
    path.write_text(body, encoding="iso-8859-1")
    return path


def _record(ident: str, categ: str, relations: str = "", text: str = "x") -> str:
    return f'<EM ID="{ident}" CATEG="{categ}"{relations}>{text}</EM> ---> [null]::[Em_Falta]'


def test_expansion_closes_inverses_and_chains(tmp_path: Path) -> None:
    # a inclui b, b inclui c, c sede_de d: inverses and the chain to a's sede_de d
    path = _alts(
        tmp_path,
        _record("a", "LOCAL", ' COREL="b" TIPOREL="inclui" FACS_ORIGEM="LOCAL" FACS_ALVO="LOCAL"'),
        _record("b", "LOCAL", ' COREL="c" TIPOREL="inclui" FACS_ORIGEM="LOCAL" FACS_ALVO="LOCAL"'),
        _record(
            "c",
            "LOCAL",
            ' COREL="d" TIPOREL="sede_de" FACS_ORIGEM="LOCAL" FACS_ALVO="ORGANIZACAO"',
        ),
        _record("d", "ORGANIZACAO"),
    )
    triples = steps.run_triples(steps.run_expand(path).output).output
    lines = set(triples.read_text(encoding="iso-8859-1").splitlines())
    expected = {
        "a LOCAL inclui b LOCAL",
        "a LOCAL inclui c LOCAL",
        "b LOCAL inclui c LOCAL",
        "b LOCAL incluido a LOCAL",
        "c LOCAL incluido a LOCAL",
        "c LOCAL incluido b LOCAL",
        "c LOCAL sede_de d ORGANIZACAO",
        "b LOCAL sede_de d ORGANIZACAO",
        "a LOCAL sede_de d ORGANIZACAO",
        "d ORGANIZACAO ocorre_em c LOCAL",
        "d ORGANIZACAO ocorre_em b LOCAL",
        "d ORGANIZACAO ocorre_em a LOCAL",
    }
    assert {line for line in lines if line.count(" ") == 4} == expected


# ---------------------------------------------------------------------------
# Quirks and their corrections


def _triples(*lines: str) -> list:
    return [parse_triple(line) for line in lines]


def test_target_id_is_never_compared_unless_fixed() -> None:
    gold = _triples("g229 LOCAL incluido g220 LOCAL")
    part = _triples("g229 LOCAL incluido g230 LOCAL")
    official = evaluate_document("d", gold, part)
    assert [label for _, label in official.evaluations] == ["Relação Correcta"]
    fixed = evaluate_document("d", gold, part, fix_target_match=True)
    assert [label for _, label in fixed.evaluations] == ["Espuria", "Em Falta"]


def test_non_basic_relations_pass_every_filter_unless_strict(tmp_path: Path) -> None:
    path = tmp_path / "t.triplas"
    path.write_text(
        "#LOCAL\n\nDOC d\n[CD]\na LOCAL ident b LOCAL\na LOCAL inclui c LOCAL\n"
        "a LOCAL natural_de d LOCAL\n[Part]\nEOD\n",
        encoding="iso-8859-1",
    )
    official = steps.run_filter(path, tmp_path / "o", ["ident"]).output.read_text()
    assert "natural_de" in official and "inclui" not in official
    strict = steps.run_filter(path, tmp_path / "s", ["ident"], strict=True).output.read_text()
    assert "natural_de" not in strict and "a LOCAL ident b LOCAL" in strict
    assert official.splitlines()[1] == "#ident"


def test_corels_are_relation_counts_unless_unique() -> None:
    gold = _triples("a LOCAL ident b LOCAL", "a LOCAL outra b LOCAL")
    part = _triples("a LOCAL ident b LOCAL", "a LOCAL inclui b LOCAL")
    official = evaluate_document("d", gold, part)
    assert (official.corels_gold, official.corels_system, official.corels_correct) == (2, 2, 1)
    unique = evaluate_document("d", gold, part, unique_corels=True)
    assert (unique.corels_gold, unique.corels_system, unique.corels_correct) == (1, 1, 1)
    assert [label for _, label in official.evaluations] == [
        "Relação Correcta",
        "COREL e categorias Correctos",
        "Em Falta",
    ]


def test_the_graph_view_draws_each_documents_relations(tmp_path: Path) -> None:
    path = tmp_path / "t.triplas"
    path.write_text(
        "#LOCAL\n\nDOC d1\n[CD]\na LOCAL ident b LOCAL\na LOCAL natural_de c LOCAL\n"
        "[Part]\na LOCAL ident b LOCAL\nEOD\n\nDOC d2\n[CD]\n[Part]\nEOD\n",
        encoding="iso-8859-1",
    )
    assert main(["rerelem", "graph", str(path)]) == 0
    page = (tmp_path / "t.triplas.html").read_text()
    # one SVG per document with relations, besides the hidden one of the arrowheads
    assert page.count("<svg") == 2 and 'id="d1"' in page and 'id="d2"' not in page
    assert page.count("marker-end=") == 3 and page.count("<circle") == 3
    assert page.count('stroke-dasharray="6 4"') == 1  # the system's one relation
    assert page.count('stroke="#1f77b4"') == 2 and page.count('stroke="#7f7f7f"') == 1
    assert page.count('marker-end="url(#m0)"') == 2  # ident's arrowhead, ident's colour
    assert '<marker id="m0"' in page and 'fill="#1f77b4"' in page
    assert "<title>a LOCAL natural_de c LOCAL</title>" in page
    assert "2 golden, 1 system relations, 1 of them in both" in page
    # the gold's straight, the system's curved: a relation both give shows twice
    gold, system = (x for x in page.split("<path d=")[1:] if "marker-end" in x and "ident" in x)
    assert "Q" not in gold.split('"')[1] and "Q" in system.split('"')[1]
    assert page.count(">a</text>") == 1  # nodes labelled by ID


# ---------------------------------------------------------------------------
# Bad input: one line, exit 2, nothing written


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("harem rerelem: error: ") and err.count("\n") == 1, err
    return err


def test_an_alts_without_the_veil_header_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.alts"
    path.write_text("DOC d1\n" + _record("a", "LOCAL") + "\nEOD\n", encoding="iso-8859-1")
    assert main(["rerelem", "expand", str(path)]) == 2
    assert "the veil header #CATEGORIES as the first line" in _one_error_line(capsys)
    assert not (tmp_path / "d.alts.expandido").exists()


def test_an_unknown_relation_type_in_a_filter_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.triplas"
    shutil.copy(CENARIO5 / "cenario5.triplas.gz", path.with_suffix(".gz"))
    assert (
        main(["rerelem", "filter", str(path.with_suffix(".gz")), "--filter", "ident;incluii"]) == 2
    )
    assert "unknown type 'incluii'" in _one_error_line(capsys)


def test_a_tiporel_item_without_its_corel_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.xml"
    path.write_text(
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<DOC>'
        '<EM ID="a" COREL="b" TIPOREL="ident inclui">A</EM></DOC>\n',
        encoding="iso-8859-1",
    )
    assert main(["rerelem", "convert", str(path)]) == 2
    assert "a COREL for each TIPOREL item (item 2 'inclui')" in _one_error_line(capsys)
    assert not (tmp_path / "c_t1.xml").exists()


def test_facets_shorter_than_corels_are_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    relations = ' COREL="b c" TIPOREL="ident ident" FACS_ORIGEM="LOCAL" FACS_ALVO="LOCAL"'
    path = _alts(tmp_path, _record("a", "LOCAL", relations), _record("b", "LOCAL"))
    assert main(["rerelem", "expand", str(path)]) == 2
    assert "one FACS_ORIGEM and FACS_ALVO item per COREL" in _one_error_line(capsys)


def test_a_record_outside_a_document_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.alts"
    path.write_text(HEADER + "\n" + _record("a", "LOCAL") + "\n", encoding="iso-8859-1")
    assert main(["rerelem", "select", str(path)]) == 2
    assert "a record inside DOC" in _one_error_line(capsys)


def test_intervals_of_identical_documents_are_their_figures() -> None:
    from harem_pipeline.measures.rerelem import rerelem_intervals

    doc = {
        "rels_gold": 10,
        "rels_system": 8,
        "corels_gold": 10,
        "corels_system": 8,
        "corels_correct": 7,
        "correct": 6,
        "corel_correct": 1,
        "spurious": 1,
        "missing": 4,
    }
    ci = rerelem_intervals({"a": doc, "b": dict(doc), "c": dict(doc)}, Resampling(50, 1))
    assert ci["relations"]["precision"] == pytest.approx([6 / 8, 6 / 8])
    assert ci["relations"]["recall"] == pytest.approx([0.6, 0.6])
    f = 2 * 0.75 * 0.6 / 1.35
    assert ci["relations"]["f"] == pytest.approx([f, f])
    assert ci["corels"]["precision"] == pytest.approx([7 / 8, 7 / 8])
    score = 6 + 0.5 - 0.2  # +1 correct, +0.5 COREL-correct, -0.2 spurious
    assert ci["score"]["precision"] == pytest.approx([score / 8, score / 8])
    assert ci["score"]["recall"] == pytest.approx([score / 10, score / 10])
    none = dict(doc, rels_system=0, correct=0, corel_correct=0, spurious=0)
    assert rerelem_intervals({"a": none}, Resampling(20, 1))["relations"]["precision"] is None
    assert rerelem_intervals({"a": doc}, Resampling(0, 1)) is None
