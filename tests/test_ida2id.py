"""Ida2ID: counts and measures equal to the Java .globalid, properties, bad input."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.cli.names import subset_from_name
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    Blank,
    DocEnd,
    DocStart,
    Header,
    Line,
    Record,
    Tag,
    format_evaluation,
    parse_lines,
)
from harem_pipeline.measures.core import figures_of_row
from harem_pipeline.measures.identification import identification_figures, measures_from_counts
from harem_pipeline.pipeline.ida2id import run_ida2id
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.reports.ida2id import JSON_KEYS, format_ida2id_text
from harem_pipeline.stages.ida2id import (
    IdentificationCounts,
    tally_identification,
)

UNKNOWN = ReportParams(evaluation=None)
"""A report made outside a campaign: no evaluation veil named."""

REFERENCE_CASES = [
    ("exemplo0", "total_muc"),
    ("exemplo1", "total_muc"),
    ("exemplo1", "total_harem"),
    ("gabriel", "run"),
    ("brackets", "total_harem"),  # entity texts with [ ] and '' (see its README)
    ("bracket-edges", "total_harem"),  # a system text trimmed once its brackets are gone
]


def reference_lines(data_dir: Path, folder: str, name: str) -> list[str]:
    path = data_dir / "reference" / folder / f"{name}.alinhado.avalida.globalid.gz"
    return gzip.open(path).read().decode("iso8859-1").splitlines()


@pytest.mark.parametrize(("folder", "name"), REFERENCE_CASES)
def test_equals_java_globalid(data_dir: Path, tmp_path: Path, folder: str, name: str) -> None:
    source = data_dir / "reference" / folder / f"{name}.alinhado.avalida.gz"
    result = run_ida2id(source, UNKNOWN, "harem:test", tmp_path / "out.ida2id")
    # the report is in the input's encoding, ISO-8859-1 for a plain ASCII input (exemplo0's,
    # bracket-edges'), as the Java writes every .globalid: the same bytes
    ours = result.text_path.read_bytes().decode("iso8859-1").splitlines()
    expected = reference_lines(data_dir, folder, name)
    assert ours[:-1] == expected
    assert ours[-1] == "Assinatura: harem:test"
    figures = json.loads(result.json_path.read_text("utf-8"))
    assert list(figures) == [*JSON_KEYS, "signature", "ci95", "documents"]
    for key, line in zip(JSON_KEYS, expected, strict=True):
        assert figures[key] == float(line.split(": ")[1])


def test_gabriel_figures(data_dir: Path) -> None:
    # run.alinhado.avalida.globalid: 2822 + 1114 + 135 = 4071 identified, i.e. each
    # evaluation item counts once (the Java duplicate finder never fires)
    _, tally = _read(data_dir / "reference/gabriel/run.alinhado.avalida.gz")
    total = tally.total
    assert (total.total_cd, total.identified, total.correct) == (7732, 4071, 2822)
    assert (total.partial_occurrences, total.spurious, total.missing) == (1114, 135, 3868)
    assert total.partial_correct_sum == 236.72446858696813
    assert measures_from_counts(total).precision == 0.7513447478720138
    # per-document counts (one per DOC block, 129 documents) add up to the totals
    assert len(tally.documents) == 129
    summed = sum((d.counts for d in tally.documents), IdentificationCounts())
    assert summed.identified == total.identified and summed.total_cd == total.total_cd
    assert summed.partial_correct_sum == pytest.approx(total.partial_correct_sum, rel=1e-12)


def _read(path: Path):
    from harem_pipeline.stages.ida2id import read_tally

    return read_tally(path)


def test_exemplo0_recall_above_one_by_hand(data_dir: Path) -> None:
    # exemplo0: (10 correct + 4.3 partial credit) / 12 CD entities = 1.1916666666666667;
    # the .avalida holds all four ALT alternatives and six system entities partially
    # aligned to one CD entity, so recall is not bounded by 1 without ALT selection
    counts = tally_identification(
        parse_lines(
            gzip.open(data_dir / "reference/exemplo0/total_muc.alinhado.avalida.gz")
            .read()
            .decode("utf-8")
        )
    ).total
    assert measures_from_counts(counts).recall == (10 + 4.3) / 12 == 1.1916666666666667


def test_undefined_ratios_are_dash_and_null(tmp_path: Path) -> None:
    empty = tmp_path / "empty.avalida"
    empty.write_text("# run.xml\n# cd.xml\n", "utf-8")
    result = run_ida2id(empty, UNKNOWN, "s")
    assert result.text_path == tmp_path / "empty.avalida.ida2id"
    text = result.text_path.read_text("iso8859-1")  # a plain ASCII input: the Java's labels
    assert "Precisão: -\n" in text and "Erro Combinado: -\n" in text
    assert "Soma Parcialmente Correctos: 0.0\n" in text and "Total na CD: 0\n" in text
    figures = json.loads(result.json_path.read_text("utf-8"))
    assert figures["precisao"] is None and figures["medida_f"] is None
    assert figures["total_cd"] == 0


def test_f_undefined_when_nothing_earned() -> None:
    # one missing and one spurious: P = 0/1, R = 0/1, F = 0/0 → undefined (Java: NaN)
    counts = IdentificationCounts(total_cd=1, identified=1, spurious=1, missing=1)
    measures = measures_from_counts(counts)
    assert (measures.precision, measures.recall, measures.f_measure) == (0.0, 0.0, None)
    assert measures.combined_error == 1.0
    assert "Medida F: -\n" in format_ida2id_text(counts, measures, "s")


def test_subset_from_name() -> None:
    assert subset_from_name("run.alinhado.avalida") == "total"
    assert subset_from_name("run.alinhado.avalida.pt.web.altida") == "pt.web"
    assert subset_from_name("x/run.alinhado.avalida.total.altida.gz") == "total"


def test_cli_writes_report_and_json(data_dir: Path, tmp_path: Path) -> None:
    source = data_dir / "reference/exemplo1/total_harem.alinhado.avalida.gz"
    out = tmp_path / "r.ida2id"
    assert main(["ida2id", str(source), "-o", str(out)]) == 0
    text = out.read_bytes().decode("iso8859-1")
    figures = json.loads((tmp_path / "r.ida2id.json").read_text("utf-8"))
    signature = text.splitlines()[-1].removeprefix("Assinatura: ")
    assert figures["signature"] == signature
    assert (
        signature.startswith("harem:")
        and "|subset:total|style:harem|veil:*|alt:best|boot:1000|seed:12345" in signature
    )
    assert figures["total_identificadas"] == 266


BAD_INPUTS = [
    (
        '<EM ID="c1">Lisboa</EM> ---> [null]\n',
        "line 1: expected an evaluated record",
    ),
    (
        '<EM ID="c1">Lisboa</EM> ---> [null]:[Correctissimo]\n',
        "line 1: expected an evaluation",
    ),
    (
        '<EM ID="c1">Rio</EM> ---> [<EM>Rio</EM>, <EM>Rio</EM>]:[Correcto]\n',
        "line 1: expected 2 evaluation item(s)",
    ),
    (
        '<EM ID="c1">Rio</EM> ---> [<EM>Rio</EM>]:[Parcialmente_Correcto_por_Defeito(x; y)]\n',
        "line 1: expected numbers in a partial evaluation",
    ),
]


@pytest.mark.parametrize(("content", "message"), BAD_INPUTS)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    bad = tmp_path / "bad.avalida"
    bad.write_text(content, "utf-8")
    assert main(["ida2id", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{bad}, {message}" in err
    assert not (tmp_path / "bad.avalida.ida2id").exists()
    with pytest.raises(InputError):
        tally_identification(parse_lines(content, str(bad)), str(bad))


# ---------------------------------------------------------------------------
# Properties on generated evaluated files

PARTIAL_WEIGHTS = st.sampled_from([0.05, 0.1, 1 / 6, 0.25, 1 / 3, 5 / 14, 3 / 7, 0.5])
RECORD_KINDS = st.sampled_from(["found", "found", "missing", "spurious"])
WEIGHT_LISTS = st.lists(st.one_of(st.none(), PARTIAL_WEIGHTS), min_size=1, max_size=3)
PARTIAL_KINDS = st.sampled_from(
    ["Parcialmente_Correcto_por_Excesso", "Parcialmente_Correcto_por_Defeito"]
)
"""Strategies the composite draws from, built once (the values drawn are the same)."""


@st.composite
def evaluated_record(draw: st.DrawFn) -> Record:
    kind = draw(RECORD_KINDS)
    if kind == "missing":
        return Record(Tag("EM", (), "x"), None, (format_evaluation("Em_Falta"),), ":")
    if kind == "spurious":
        gold = Tag("EM", (("CATEG", "ESPURIO"),), "x")
        return Record(gold, (Tag("EM", (), "x"),), (format_evaluation("Espurio"),), ":")
    items = draw(WEIGHT_LISTS)
    evaluation = tuple(
        format_evaluation("Correcto") if w is None else format_evaluation(draw(PARTIAL_KINDS), w)
        for w in items
    )
    system = tuple(Tag("EM", (), "x") for _ in items)
    return Record(Tag("EM", (), "x"), system, evaluation, ":")


DOCUMENTS = st.lists(st.lists(evaluated_record(), max_size=6), min_size=1, max_size=6)


def as_lines(documents: list[list[Record]]) -> list[Line]:
    lines: list[Line] = [Header(" run"), Header(" cd")]
    for number, records in enumerate(documents):
        lines += [DocStart(f"d{number}"), *records, DocEnd(), Blank(), Blank()]
    return lines


@settings(derandomize=True, deadline=None, max_examples=150)
@given(DOCUMENTS)
def test_ranges_and_conservation(documents: list[list[Record]]) -> None:
    tally = tally_identification(as_lines(documents))
    counts = tally.total
    items = sum(len(r.evaluation or ()) for doc in documents for r in doc)
    # every evaluation item is either missing or one identified entity, and every
    # identified entity is correct, partial or spurious
    assert counts.identified + counts.missing == items
    assert counts.identified == counts.correct + counts.partial_occurrences + counts.spurious
    assert counts.total_cd == sum(
        1 for doc in documents for r in doc if r.gold.attr("CATEG") != "ESPURIO"
    )
    assert counts.partial_correct_sum + counts.partial_incorrect_sum == pytest.approx(
        counts.partial_occurrences
    )
    measures = measures_from_counts(counts)
    if measures.precision is not None:
        assert 0 <= measures.precision <= 1  # an identified entity earns at most 1
    if measures.recall is not None:
        # no upper bound: several system entities may each earn partial credit from
        # one CD entity (exemplo0 prints 1.1916666666666667)
        assert measures.recall >= 0
    for ratio in (measures.over_generation, measures.under_generation, measures.combined_error):
        assert ratio is None or 0 <= ratio <= 1
    assert [d.docid for d in tally.documents] == [f"d{n}" for n in range(len(documents))]
    summed = sum((d.counts for d in tally.documents), IdentificationCounts())
    assert summed.as_mapping() == pytest.approx(counts.as_mapping())


@settings(derandomize=True, deadline=None, max_examples=100)
@given(DOCUMENTS, st.randoms(use_true_random=False))
def test_invariant_to_document_order(documents: list[list[Record]], rnd) -> None:
    shuffled = list(documents)
    rnd.shuffle(shuffled)
    a = tally_identification(as_lines(documents)).total
    b = tally_identification(as_lines(shuffled)).total
    # integers are identical; the two sums only up to floating-point rounding,
    # since they are accumulated in file order (as the Java does)
    assert a.as_mapping() == pytest.approx(b.as_mapping(), rel=1e-12, abs=1e-12)
    assert (a.total_cd, a.identified, a.correct, a.missing) == (
        b.total_cd,
        b.identified,
        b.correct,
        b.missing,
    )
    ma, mb = measures_from_counts(a), measures_from_counts(b)
    for x, y in zip(
        (ma.precision, ma.recall, ma.f_measure),
        (mb.precision, mb.recall, mb.f_measure),
        strict=True,
    ):
        assert (x is None and y is None) or math.isclose(x, y, rel_tol=1e-12)


@settings(derandomize=True, deadline=None, max_examples=50)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=5))
def test_perfect_run_scores_one(sizes: list[int]) -> None:
    documents = [
        [
            Record(Tag("EM", (), "x"), (Tag("EM", (), "x"),), (format_evaluation("Correcto"),))
            for _ in range(size)
        ]
        for size in sizes
    ]
    measures = measures_from_counts(tally_identification(as_lines(documents)).total)
    assert (measures.precision, measures.recall, measures.f_measure) == (1.0, 1.0, 1.0)
    assert measures.combined_error == 0.0
    assert (measures.over_generation, measures.under_generation) == (0.0, 0.0)


def test_bootstrap_mapping_round_trip(data_dir: Path) -> None:
    # documents' counts, summed as the bootstrap sums them, measure like the whole file
    _, tally = _read(data_dir / "reference/exemplo1/total_harem.alinhado.avalida.gz")
    mapped = [d.counts.as_mapping() for d in tally.documents]
    totals = {key: sum(m.get(key, 0) for m in mapped) for key in mapped[0]}
    figures = figures_of_row(identification_figures, totals)
    assert totals["identified"] == 266
    assert figures["precisao"] == pytest.approx(0.6189175746976499, rel=1e-12)


FIRST_HAREM_TEXT = """\
#CATEGORIA1=["TIPO1"]
HAREM-251-04443 PT Web
<LOCAL TIPO="ADMINISTRATIVO">Portugal</LOCAL> ---> [<LOCAL>Portugal</LOCAL>]:[Correcto]
<LOCAL TIPO="ALARGADO">Hotel Lisboa Plaza</LOCAL> ---> [<LOCAL>Hotel Lisboa</LOCAL>, \
<PESSOA>Plaza</PESSOA>]:[Parcialmente_Correcto_por_Defeito(0.3333333333333333; \
0.6666666666666667), Parcialmente_Correcto_por_Defeito(0.16666666666666666; 0.8333333333333334)]
<ESPURIO>História</ESPURIO> ---> [<ABSTRACCAO>História</ABSTRACCAO>]:[Espúrio]
HAREM-111-00001 BR Jornal
<LOCAL>Pinheiros</LOCAL> ---> [null]:[Em_Falta]
"""


def test_first_harem_file_by_hand() -> None:
    # CD: Portugal, Hotel Lisboa Plaza, Pinheiros = 3 (the ESPURIO side is not CD);
    # identified: 1 + 2 + 1 = 4; Σw = 1/3 + 1/6 = 0.5, Σ(1-w) = 1.5
    # P = (1 + 0.5)/4 = 0.375, R = 1.5/3 = 0.5, error = (1.5 + 1 + 1)/(2 + 1 + 1 + 1) = 0.7
    tally = tally_identification(parse_lines(FIRST_HAREM_TEXT))
    counts = tally.total
    assert (counts.total_cd, counts.identified, counts.correct) == (3, 4, 1)
    assert (counts.partial_occurrences, counts.spurious, counts.missing) == (2, 1, 1)
    measures = measures_from_counts(counts)
    assert (measures.precision, measures.recall) == (0.375, 0.5)
    assert measures.combined_error == pytest.approx(0.7)
    assert [d.docid for d in tally.documents] == ["HAREM-251-04443", "HAREM-111-00001"]
    assert tally.documents[1].counts.missing == 1


def test_doc_line_then_document_line_is_one_document() -> None:
    text = "DOC HAREM-1\nHAREM-1 PT Web\n<LOCAL>Rio</LOCAL> ---> [null]:[Em_Falta]\nEOD\n"
    tally = tally_identification(parse_lines(text))
    assert [d.docid for d in tally.documents] == ["HAREM-1"]


def test_after_altida_exemplo0_by_hand(data_dir: Path, tmp_path: Path) -> None:
    from harem_pipeline.pipeline.identification import run_altida

    chosen = run_altida(
        data_dir / "reference/exemplo0/total_muc.alinhado.avalida.gz", tmp_path / "x"
    )
    counts = run_ida2id(chosen, UNKNOWN, "s").counts.total
    # outside the ALT: cd2, cd4 and teste2's three Correcto, cd3 missing, one spurious
    # (6 CD entities); ALT2 kept: cdAlt2a [5/14, C, 1/3, .1, .1], cdAlt2b [1/14, .1, C]
    assert (counts.total_cd, counts.identified, counts.correct) == (8, 14, 7)
    assert (counts.partial_occurrences, counts.spurious, counts.missing) == (6, 1, 1)
    assert counts.partial_correct_sum == pytest.approx(5 / 14 + 1 / 3 + 0.2 + 1 / 14 + 0.1)
