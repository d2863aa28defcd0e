"""95 % document-bootstrap intervals (``ci95``) in every report JSON.

Real data: the reference ``.avalida`` files (Ida2ID), a First HAREM chain of
the simulated weak run (Ida2Mor), the CoNLL-2000 sample (span measures).
The span measures' array formula, which computes every resample at once, is
checked here against the measures the report prints; each family's on random
counts in test_measure_families.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.measures import identification, morphology
from harem_pipeline.measures.bootstrap import (
    Columns,
    count_matrix,
    percentile_interval,
    resampled_totals,
)
from harem_pipeline.measures.core import figures_of_row
from harem_pipeline.measures.resampling import NO_BOOTSTRAP, Resampling
from harem_pipeline.measures.spans import compute_measures, span_figures, span_intervals
from harem_pipeline.model import make_span
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.stages import ida2id
from harem_pipeline.stages.span_units import CountLayout
from harem_pipeline.stages.spans import (
    SpanTally,
    count_document,
    span_counts_as_mapping,
    sum_counts,
)
from harem_pipeline.stages.tally import document_rows

ID_KEYS = ["precisao", "abrangencia", "medida_f"]
SPAN_KEYS = ["precision", "recall", "f1"]
AVALIDA = [
    "exemplo1/total_harem.alinhado.avalida.gz",
    "exemplo1/total_muc.alinhado.avalida.gz",
    "gabriel/run.alinhado.avalida.gz",
]


def contains(interval: list[float] | None, value: float | None) -> bool:
    if interval is None or value is None:
        return interval is None and value is None
    low, high = interval
    return low <= value <= high


def same_number(array_value: float, scalar: float | None) -> bool:
    """NaN in the array form is None in the scalar form; otherwise equal to the last bit."""
    return scalar is None if math.isnan(array_value) else array_value == scalar


def single_row(mapping: dict) -> Columns:
    names, matrix = count_matrix([mapping])
    return Columns(names, matrix)


# ---------------------------------------------------------------------------
# Ida2ID


@pytest.mark.parametrize("name", AVALIDA)
def test_ida2id_json_intervals_contain_the_figures(
    data_dir: Path, tmp_path: Path, name: str
) -> None:
    out = tmp_path / "r.ida2id"
    assert main(["ida2id", str(data_dir / "reference" / name), "-o", str(out)]) == 0
    report = json.loads((tmp_path / "r.ida2id.json").read_text("utf-8"))
    assert list(report["ci95"]) == ID_KEYS
    for key in ID_KEYS:
        low, high = report["ci95"][key]
        assert low < high  # several documents that differ: a real spread
        assert contains(report["ci95"][key], report[key]), key
    # documents: one per DOCID, adding up to the report's totals
    totals = {}
    for counts in report["documents"].values():
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    assert totals["total_cd"] == report["total_cd"]
    assert totals["identified"] == report["total_identificadas"]
    assert totals.get("spurious", 0) == report["espurios"]


def test_ida2id_gabriel_129_documents_seeded(data_dir: Path) -> None:
    _, tally = ida2id.read_tally(data_dir / "reference/gabriel/run.alinhado.avalida.gz")
    documents = document_rows(tally.documents)
    assert len(documents) == 129
    first = identification.identification_intervals(documents, Resampling(1000, 3))
    assert first == identification.identification_intervals(documents, Resampling(1000, 3))
    other = identification.identification_intervals(documents, Resampling(1000, 4))
    assert other != first
    # another seed moves the bounds a little, not the picture (P = 0.7513 from the .globalid)
    for key in ID_KEYS:
        assert abs(other[key][0] - first[key][0]) < 0.01
    assert contains(first["precisao"], 0.7513447478720138)


def test_ida2id_bootstrap_zero_is_null(data_dir: Path, tmp_path: Path) -> None:
    source = data_dir / "reference/exemplo1/total_harem.alinhado.avalida.gz"
    out = tmp_path / "r.ida2id"
    assert main(["ida2id", str(source), "-o", str(out), "--bootstrap", "0"]) == 0
    report = json.loads((tmp_path / "r.ida2id.json").read_text("utf-8"))
    assert report["ci95"] is None
    assert len(report["documents"]) == 6  # kept: harem compare needs them
    # the text report is the .globalid's 14 lines, the veil in words and the signature,
    # with or without intervals
    assert out.read_bytes().decode("iso8859-1").count("\n") == 16


def test_ida2id_identical_documents_give_the_point_value() -> None:
    # ten copies of one document: every resample is 10 × that document, so each
    # interval collapses onto the measure of the whole (P = 3.5/5, R = 3.5/6)
    doc = {"total_cd": 6, "identified": 5, "correct": 3, "partial_occurrences": 1}
    doc |= {"partial_correct_sum": 0.5, "partial_incorrect_sum": 0.5, "missing": 2}
    documents = {f"d{i}": doc for i in range(10)}
    whole = figures_of_row(
        identification.identification_figures, {key: 10 * value for key, value in doc.items()}
    )
    intervals = identification.identification_intervals(documents, Resampling(200))
    assert intervals == {key: [whole[key], whole[key]] for key in ID_KEYS}
    assert whole["precisao"] == 3.5 / 5


def test_ida2id_undefined_in_every_resample_is_null() -> None:
    # nothing identified and nothing in the CD: P, R and F are 0/0 in every resample
    documents = {"a": {"missing": 0}, "b": {}}
    assert identification.identification_intervals(documents, Resampling(100)) == dict.fromkeys(
        ID_KEYS
    )
    # no documents at all: undefined, not an error
    assert identification.identification_intervals({}, Resampling(100)) == dict.fromkeys(ID_KEYS)


# ---------------------------------------------------------------------------
# Ida2Mor on a First HAREM chain


@pytest.fixture(scope="module")
def weak_altmor(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AltinaMor output (absolute scenario) of the simulated weak run on the First HAREM CD."""
    folder = tmp_path_factory.mktemp("weak")
    cd = data_dir / "first-harem" / "ColeccaoDouradaHAREM.txt"
    stem = folder / "weak.alinhado"
    run = data_dir / "campaign" / "sim-weak.txt.gz"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(stem)]) == 0
    assert main(["avalida", str(stem), "-o", f"{stem}.avalida"]) == 0
    total = folder / "weak.alinhado.avalida.total.abs"
    assert main(["veus", "--style", "harem", f"{stem}.avalida", "-o", str(total)]) == 0
    assert main(["vizir", str(total), "-abs"]) == 0
    assert main(["altmor", f"{total}.vizir"]) == 0
    return folder / f"{total.name}.altmor"


def test_ida2mor_json_intervals_contain_the_figures(weak_altmor: Path, tmp_path: Path) -> None:
    out = tmp_path / "weak.ida2mor"
    assert main(["ida2mor", str(weak_altmor), "-o", str(out)]) == 0
    report = json.loads((tmp_path / "weak.ida2mor.json").read_text("utf-8"))
    assert list(report["fields"]) == ["genero", "numero", "combinada"]
    for name, field in report["fields"].items():
        assert list(field["ci95"]) == ID_KEYS
        for key in ID_KEYS:
            low, high = field["ci95"][key]
            assert low < high
            assert contains(field["ci95"][key], field[key]), (name, key)
    assert len(report["documents"]) == 129
    assert list(report)[-1] == "documents"
    combined = sum(d.get("combinada.total_cd", 0) for d in report["documents"].values())
    assert combined == report["fields"]["combinada"]["total_cd"]


def test_ida2mor_bootstrap_zero_and_identical_documents(weak_altmor: Path, tmp_path: Path) -> None:
    out = tmp_path / "w.ida2mor"
    assert main(["ida2mor", str(weak_altmor), "-o", str(out), "--bootstrap", "0"]) == 0
    report = json.loads((tmp_path / "w.ida2mor.json").read_text("utf-8"))
    assert [field["ci95"] for field in report["fields"].values()] == [None, None, None]
    # identical documents: correcto 3, parcialmente correcto 1 → score 3.5 over 4 and 5
    doc = {"genero.correct": 3, "genero.partially_correct": 1}
    doc |= {"genero.total_system": 4, "genero.total_cd": 5}
    intervals = morphology.morphology_intervals({f"d{i}": doc for i in range(7)}, Resampling(100))
    f = 7 / 9
    assert intervals["genero"] == {
        "precisao": [3.5 / 4, 3.5 / 4],
        "abrangencia": [3.5 / 5, 3.5 / 5],
        "medida_f": [f, f],
    }
    # numero and combinada have nothing in any resample: undefined
    assert intervals["numero"] == dict.fromkeys(ID_KEYS)


# ---------------------------------------------------------------------------
# Span measures


def test_span_json_intervals_contain_the_figures(capsys, data_dir: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    assert main(["measures", str(sample), "--format", "conll", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    triples = [report[view][row] for view in ("labelled", "unlabelled") for row in
               ("exact", "overlap", "intersection")]  # fmt: skip
    triples += [report["labelled"]["semeval"][row] for row in ("strict", "partial")]
    triples += [report["per_label"]["NP"]["exact"]]
    for triple in triples:
        assert list(triple) == [*SPAN_KEYS, "ci95"]
        assert list(triple["ci95"]) == SPAN_KEYS
        for key in SPAN_KEYS:
            assert contains(triple["ci95"][key], triple[key])
    # conlleval's 68.83 % precision lies inside a real spread
    low, high = report["labelled"]["exact"]["ci95"]["precision"]
    assert low < 371 / 539 < high and high - low > 0.02
    # one document per sentence (named by its first line); they add up to the totals
    documents = report["documents"]
    assert len(documents) == 40 and "1" in documents
    assert sum(d.get("labelled.system", 0) for d in documents.values()) == 539


def test_span_measures_bootstrap_zero_is_null(capsys, data_dir: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    argv = ["measures", str(sample), "--format", "conll", "--json", "--bootstrap", "0"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labelled"]["exact"]["ci95"] is None
    assert report["unlabelled"]["semeval"]["type"]["ci95"] is None
    assert report["per_label"]["VP"]["overlap"]["ci95"] is None


def test_span_array_measures_equal_compute_measures(data_dir: Path) -> None:
    report = measure_file(data_dir / "conll2000" / "sample.txt", "conll", resampling=NO_BOOTSTRAP)
    arrays = span_figures(single_row(span_counts_as_mapping(report.counts)))
    measures = compute_measures(report.counts)
    expected = {}
    for view in ("labelled", "unlabelled"):
        vm = getattr(measures, view)
        for row in ("exact", "overlap", "intersection"):
            expected[f"{view}.{row}"] = getattr(vm, row)
        for row in ("strict", "exact", "partial", "type"):
            expected[f"{view}.semeval.{row}"] = getattr(vm.semeval, row)
    for label, lm in measures.per_label:
        for row in ("exact", "overlap", "intersection"):
            expected[f"per_label.{label}.{row}"] = getattr(lm, row)
    for row in ("exact", "overlap", "intersection"):
        expected[f"macro.{row}"] = getattr(measures.macro, row)
    assert len(arrays) == 3 * len(expected) == 3 * (14 + 6 * 3 + 3)
    for path, prf in expected.items():
        for key in SPAN_KEYS:
            assert same_number(float(arrays[f"{path}.{key}"][0]), getattr(prf, key)), path


def test_span_identical_documents_and_seed() -> None:
    # every document: gold A[0,2) B[3,4), system A[0,2) B[3,5) → exact P = R = 1/2
    doc = count_document(
        [make_span(0, 2, "A"), make_span(3, 4, "B")], [make_span(0, 2, "A"), make_span(3, 5, "B")]
    )
    intervals = span_intervals([doc] * 8, Resampling(100))
    assert intervals["labelled"]["exact"] == {"precision": [0.5, 0.5], "recall": [0.5, 0.5],
                                              "f1": [0.5, 0.5]}  # fmt: skip
    whole = compute_measures(sum_counts([doc] * 8)).labelled.intersection
    assert intervals["labelled"]["intersection"]["precision"] == [whole.precision] * 2
    assert intervals["per_label"]["B"]["overlap"]["recall"] == [1.0, 1.0]
    assert span_intervals([doc] * 8, NO_BOOTSTRAP) is None


def test_labels_with_dots_keep_their_name() -> None:
    doc = count_document([make_span(0, 1, "ORG.X")], [make_span(0, 1, "ORG.X")])
    intervals = span_intervals([doc, doc], Resampling(10))
    assert intervals["per_label"]["ORG.X"]["exact"]["f1"] == [1.0, 1.0]


SPANS = st.lists(
    st.builds(
        lambda start, length, label: make_span(start, start + length, label),
        st.integers(0, 12),
        st.integers(1, 4),
        st.sampled_from(["A", "B", "A|B", "C"]),
    ),
    max_size=6,
)


@settings(derandomize=True, deadline=None, max_examples=150)
@given(st.lists(st.tuples(SPANS, SPANS), min_size=1, max_size=3))
def test_unit_row_equals_the_frozen_counts(documents) -> None:
    # a unit's row (the fold the bootstrap units use) must agree with the
    # dataclasses the measures are computed from (overlaps, vague labels, twins)
    tally = SpanTally()
    for gold, system in documents:
        tally.add_document(gold, system)
    layout = CountLayout()
    assert layout.row_mapping(layout.tally_row(tally)) == span_counts_as_mapping(tally.counts())


def test_unit_row_of_identical_sides() -> None:
    spans = [make_span(0, 2, "A"), make_span(1, 3, "A|B")]
    tally = SpanTally()
    tally.add_document(spans, list(spans))
    layout = CountLayout()
    row = layout.row_mapping(layout.tally_row(tally))
    assert row == span_counts_as_mapping(tally.counts())
    assert row["per_label.B.exact_gold"] == 1


# ---------------------------------------------------------------------------
# The engine


def test_resampled_totals_draw_documents_with_replacement() -> None:
    # rows are unit vectors: a resample's totals count how often each document was drawn
    (totals,) = resampled_totals([np.eye(5)], Resampling(50, 1))
    assert totals.shape == (50, 5)
    assert (totals.sum(axis=1) == 5).all() and (totals >= 0).all()
    assert len({tuple(row) for row in totals}) > 1
    again = resampled_totals([np.eye(5)], Resampling(50, 1))[0]
    assert (again == totals).all()


def test_percentile_interval_rules() -> None:
    # numpy's linear rule: 2.5th percentile of 1..4 is 1.075 (by hand), NaN left out
    assert percentile_interval(np.array([1.0, np.nan, 2.0, 3.0, 4.0])) == [1.075, 3.925]
    assert percentile_interval(np.array([np.nan, np.nan])) is None


@settings(derandomize=True, deadline=None, max_examples=40)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)),
        min_size=1,
        max_size=15,
    )
)
def test_identification_intervals_are_ordered_and_bounded(rows) -> None:
    # correct ≤ identified and partial credit ≤ partial occurrences: precision in [0, 1]
    documents = {
        f"d{i}": {"correct": c, "identified": c + p, "partial_occurrences": p,
                  "partial_correct_sum": p / 4, "total_cd": t}
        for i, (c, p, t) in enumerate(rows)
    }  # fmt: skip
    intervals = identification.identification_intervals(documents, Resampling(50))
    low, high = intervals["precisao"] or (0.0, 1.0)
    assert 0 <= low <= high <= 1


def test_report_json_text_keeps_intervals_and_documents_on_one_line() -> None:
    text = format_report_json(
        {"ci95": {"p": [0.25, 1e-05]}, "s": "a [\n 1, 2 ]", "documents": {"d": {"x": 1}}}
    )
    assert text == (
        '{\n  "ci95": {\n    "p": [0.25, 1e-05]\n  },\n  "s": "a [\\n 1, 2 ]",\n'
        '  "documents": {\n    "d": {"x": 1}\n  }\n}\n'
    )
    assert json.loads(text)["documents"] == {"d": {"x": 1}}
    assert format_report_json({"documents": {}}) == '{\n  "documents": {}\n}\n'
