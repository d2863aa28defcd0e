"""Bounded bootstrap units of the span measures (``span_intervals.BoundedUnits``/``SpanUnits``).

What is checked: the merging rule on hand-made rows (counts conserved to
the last bit, units consecutive and of equal length but the last), the
closed form ``unit_size`` against the streamed grouping, the units of CoNLL
(sentences, ``-DOCSTART-`` documents), JSON lines and HAREM documents, the
same units for two systems on one gold file (what ``harem compare`` pairs),
intervals that still contain the figures, and a ``documents`` object whose
size does not grow with the input.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.formats.conll import parse_conll
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.measures.bootstrap import count_matrix
from harem_pipeline.measures.resampling import NO_BOOTSTRAP
from harem_pipeline.model import make_span
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.reports.measures import (
    document_lines,
    format_measures_text,
    measures_json,
    unit_lines,
)
from harem_pipeline.stages.span_measures import CountOptions, measure_conll
from harem_pipeline.stages.span_units import (
    UNIT_LIMIT,
    BoundedUnits,
    CountLayout,
    SpanUnits,
    document_units,
    unit_size,
)
from harem_pipeline.stages.spans import count_document, count_documents, span_counts_as_mapping

SPAN_KEYS = ("precision", "recall", "f1")


def conll_text(sentences: list[tuple[list[str], list[str]]]) -> str:
    """``w gold system`` lines, a blank line after each sentence (3 columns)."""
    out = []
    for gold, system in sentences:
        out.extend(f"w {g} {s}\n" for g, s in zip(gold, system, strict=True))
        out.append("\n")
    return "".join(out)


def contains(interval: list[float] | None, value: float | None) -> bool:
    if interval is None or value is None:
        return interval is None and value is None
    return interval[0] <= value <= interval[1]


def same_counts(found: dict, expected: dict) -> None:
    """Counts equal exactly; sums of coverages (intersection) up to their rounding."""
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        if "intersection" in key:
            assert found[key] == pytest.approx(value, rel=1e-12), key
        else:
            assert found[key] == value and isinstance(found[key], int), key


def every_triple(report: dict) -> list[dict]:
    triples = []
    for view in ("labelled", "unlabelled"):
        triples += [report[view][row] for row in ("exact", "overlap", "intersection")]
        triples += list(report[view]["semeval"].values())
    for label in report["per_label"].values():
        triples += list(label.values())
    return triples


# ---------------------------------------------------------------------------
# The merging rule, on hand-made rows


def test_5000_single_sentence_units_become_1250_runs_of_four() -> None:
    # 5000 sources: 5000/1 and 5000/2 = 2500 exceed 2000, 5000/4 = 1250 does not,
    # so runs of 4.  Streaming: at 4000 units the pairs merge (2000 runs of 2);
    # the last 1000 sources make 500 more; the final halving leaves 1250 runs of 4.
    rows = [[i, 1, i % 7, 0.25 * (i % 4)] for i in range(5000)]  # quarters: sums are exact
    units = BoundedUnits(2000)
    peak = 0
    for i, row in enumerate(rows):
        units.add(i, row)
        peak = max(peak, len(units.ids))
    assert peak == 3999  # never 2 × 2000 at rest: memory bounded by the limit
    assert units.matrix.shape[0] == 4000
    final = units.finish()
    assert len(final) == 1250 <= UNIT_LIMIT
    # consecutive runs of 4, each named by its first source
    assert [u.id for u in final] == list(range(0, 5000, 4))
    assert [u.sources for u in final] == [4] * 1250
    for j, unit in enumerate(final):
        expected = [sum(column) for column in zip(*rows[4 * j : 4 * j + 4], strict=True)]
        assert list(unit.row) == expected
    # counts conserved exactly: columns of the units add up to the columns of the sources
    totals = [sum(column) for column in zip(*(u.row for u in final), strict=True)]
    assert totals == [sum(column) for column in zip(*rows, strict=True)]
    # Σi = 4999·5000/2; 5000; Σ(i mod 7) = 714 cycles × 21 + (0 + 1); 1250 × (0 + ¼ + ½ + ¾)
    assert totals == [12497500, 5000, 14995, 1875.0]


def test_the_last_unit_may_be_shorter() -> None:
    # 5003 sources, runs of 4: 1250 full runs, then sources 5000..5002
    units = BoundedUnits(2000)
    for i in range(5003):
        units.add(i, [1])
    final = units.finish()
    assert len(final) == 1251
    assert (final[-1].id, final[-1].sources, final[-1].row) == (5000, 3, (3.0,))
    assert sum(u.sources for u in final) == 5003


@settings(derandomize=True, deadline=None, max_examples=150)
@given(st.integers(0, 300), st.integers(1, 12))
def test_streamed_grouping_is_the_closed_form(sources: int, limit: int) -> None:
    units = BoundedUnits(limit)
    for i in range(sources):
        units.add(i, [i, 1])
        assert len(units.ids) < 2 * limit
    final = units.finish()
    size = unit_size(sources, limit)
    assert len(final) <= limit
    assert [u.id for u in final] == list(range(0, sources, size))
    assert [u.sources for u in final] == [min(size, sources - i) for i in range(0, sources, size)]
    assert [u.row[1] for u in final] == [u.sources for u in final]
    assert sum(u.row[0] for u in final) == sources * (sources - 1) // 2


def test_unit_size_examples() -> None:
    # the smallest power of two s with ceil(n / s) <= 2000
    assert [unit_size(n) for n in (0, 1, 2000, 2001, 4000, 4001, 50_000)] == [1, 1, 1, 2, 2, 4, 32]


# ---------------------------------------------------------------------------
# CoNLL units


def one_span_sentences(n: int) -> list[tuple[list[str], list[str]]]:
    """Sentence i: gold B-A; the system labels it A unless i is a multiple of 3 (then B)."""
    return [(["B-A"], ["B-A" if i % 3 else "B-B"]) for i in range(n)]


def test_5000_conll_sentences_give_1250_units_of_four() -> None:
    units = SpanUnits()
    lines = conll_text(one_span_sentences(5000)).splitlines(keepends=True)
    counts, _, sentences, tokens, documents, _ = measure_conll(lines, "f.conll", units=units)
    assert (sentences, tokens, documents) == (5000, 5000, 0)  # no -DOCSTART- line
    named = units.counts([unit.id for unit in units.kept])
    assert len(named) == 1250
    # sentence i is on line 2i + 1; a unit is named by its first sentence's line
    assert [unit_id for unit_id, _ in named] == [8 * j + 1 for j in range(1250)]
    for j, (_, flat) in enumerate(named):
        right = sum(1 for i in range(4 * j, 4 * j + 4) if i % 3)
        assert flat["labelled.gold"] == flat["labelled.system"] == 4
        assert flat.get("labelled.exact_system", 0) == right
        assert flat.get("labelled.system_label_error", 0) == 4 - right
        assert flat["unlabelled.exact_system"] == 4
    # the units add up to the file's counts: 3333 of 5000 spans labelled right
    assert sum(flat.get("labelled.exact_gold", 0) for _, flat in named) == 3333
    assert counts.labelled.match.exact_gold == 3333
    assert counts.labelled.categories.gold_label_error == 1667


def test_units_add_up_to_the_file_totals_on_random_sentences() -> None:
    rng = random.Random(7)
    tags = ["O", "B-A", "I-A", "B-B", "I-B", "E-A", "S-B"]
    sentences = []
    for _ in range(700):
        n = rng.randint(1, 9)
        gold = [rng.choice(tags) for _ in range(n)]
        sentences.append((gold, [t if rng.random() < 0.6 else rng.choice(tags) for t in gold]))
    units = SpanUnits(limit=50)  # 700 sentences: runs of 16, 44 units
    counts, *_ = measure_conll(conll_text(sentences).splitlines(keepends=True), "r", units=units)
    named = units.counts([unit.id for unit in units.kept])
    assert len(named) == 44 and [u.sources for u in units.kept][:-1] == [16] * 43
    expected = span_counts_as_mapping(counts)
    totals: dict[str, float] = {}
    for _, flat in named:
        for key, value in flat.items():
            totals[key] = totals.get(key, 0) + value
    same_counts(totals, expected)
    # the matrix the bootstrap reads is the one made of the pairs
    names, matrix = named.matrix()
    expected_names, expected_matrix = count_matrix([flat for _, flat in named])
    assert names == expected_names and matrix.tolist() == expected_matrix.tolist()
    # and the file totals are those of one running tally over the sentences
    parsed = parse_conll(conll_text(sentences).splitlines(keepends=True), "r")
    direct = span_counts_as_mapping(count_documents((s.gold, s.system) for s in parsed))
    same_counts(expected, direct)


DOCUMENTS = (
    "-DOCSTART- -X- O O\n"  # 1
    "\n"  # 2
    "a X B-A B-A\n"  # 3: document 1, sentence 1 (A right)
    "\n"  # 4
    "b X B-A O\n"  # 5: document 1, sentence 2 (A missed)
    "\n"  # 6
    "-DOCSTART- -X- O O\n"  # 7
    "\n"  # 8
    "c X B-B B-B\n"  # 9: document 2 (B right)
    "-DOCSTART- -X- O O\n"  # 10
    "d X O B-A\n"  # 11: document 3 (A spurious)
)


def test_docstart_documents_are_the_units(tmp_path: Path) -> None:
    path = tmp_path / "docs.conll"
    path.write_text(DOCUMENTS)
    report = measure_file(path, "conll", resampling=NO_BOOTSTRAP)
    # Three -DOCSTART- documents of four sentences, as the text header says.
    assert (report.documents, report.sentences) == (3, 4)
    assert "documents: 3  sentences: 4  tokens: " in format_measures_text(report)
    documents = dict(report.document_counts)
    assert list(documents) == ["3", "9", "11"]  # the line of each document's first token
    assert documents["3"]["labelled.gold"] == 2 and documents["3"]["labelled.missing"] == 1
    assert documents["3"]["labelled.exact_system"] == 1
    assert documents["9"]["per_label.B.exact_gold"] == 1
    assert documents["11"] == {
        "labelled.system": 1, "labelled.spurious": 1,
        "unlabelled.system": 1, "unlabelled.spurious": 1, "per_label.A.system": 1,
    }  # fmt: skip


def test_one_leading_docstart_leaves_the_sentences_as_units(tmp_path: Path) -> None:
    # a single -DOCSTART- at the top (as the benchmark file has) is no reason for one unit
    path = tmp_path / "one.conll"
    path.write_text("-DOCSTART- -X- O O\n\n" + conll_text(one_span_sentences(3)))
    report = measure_file(path, "conll", resampling=NO_BOOTSTRAP)
    assert [docid for docid, _ in report.document_counts] == ["3", "5", "7"]


def test_sentences_before_the_first_docstart_are_the_first_document(tmp_path: Path) -> None:
    # 7 sentences, then 3 -DOCSTART- documents of one sentence: 4 documents; with a
    # limit of 2 the 7 sentences first make runs (of 2, then 4), which must collapse
    # into one document when the second begins: 4 documents → runs of 2.
    head = conll_text(one_span_sentences(7))  # lines 1..14
    tail = "".join("-DOCSTART- -X- O O\n\nw B-A B-A\n\n" for _ in range(3))  # 15..26
    path = tmp_path / "mixed.conll"
    path.write_text(head + tail)
    report = measure_file(path, "conll", CountOptions(unit_limit=2), resampling=NO_BOOTSTRAP)
    documents = dict(report.document_counts)
    # unit 1: the 7 sentences (i = 1 2 4 5 right) and document 2 (line 17, right);
    # unit 2: the documents on lines 21 and 25
    assert list(documents) == ["1", "21"]
    assert documents["1"]["labelled.gold"] == 8 and documents["1"]["labelled.exact_gold"] == 4 + 1
    assert documents["21"]["labelled.gold"] == 2 and documents["21"]["labelled.exact_gold"] == 2
    assert report.counts.labelled.match.exact_gold == 7


# ---------------------------------------------------------------------------
# Two systems on one gold file: the same units, so harem compare pairs them all


def test_two_systems_on_the_same_gold_get_the_same_units(capsys, tmp_path: Path) -> None:
    gold = one_span_sentences(4500)
    a = [(g, ["B-A" if i % 2 else "O"]) for i, (g, _) in enumerate(gold)]  # finds half
    b = [(g, ["B-A" if i % 4 else "O"]) for i, (g, _) in enumerate(gold)]  # finds 3/4
    reports = []
    for name, sentences in (("a", a), ("b", b)):
        (tmp_path / f"{name}.conll").write_text(conll_text(sentences))
        out = tmp_path / f"{name}.json"
        argv = ["measures", str(tmp_path / f"{name}.conll"), "--format", "conll", "--json"]
        assert main([*argv, "--bootstrap", "0", "-o", str(out)]) == 0
        reports.append(out)
    units_a = json.loads(reports[0].read_text())["documents"]
    units_b = json.loads(reports[1].read_text())["documents"]
    # 4500 sentences: runs of 4 (4500/2 = 2250 > 2000), 1125 units, the same names
    assert list(units_a) == list(units_b) and len(units_a) == 1125
    assert main(["compare", *map(str, reports), "--json", "--bootstrap", "200"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["shared_documents"], result["only_a"], result["only_b"]) == (1125, 0, 0)
    # recall 2250/4500 against 3375/4500; B is ahead in every resample
    recall = result["measures"]["labelled.exact.recall"]
    assert (recall["a"], recall["b"], recall["p_value"]) == (0.5, 0.75, 0.0)


# ---------------------------------------------------------------------------
# Intervals and the documents object


def test_ci95_contains_the_figures_with_merged_units(data_dir: Path, tmp_path: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    whole = measure_file(sample, "conll", resampling=NO_BOOTSTRAP)
    # the 40 sentences in 10 runs of 4 (limit 16: 40/2 = 20 > 16, 40/4 = 10)
    merged = measure_file(sample, "conll", CountOptions(unit_limit=16))
    # sentences 1, 5, 9 start on lines 1, 102, 186 of the sample
    assert [u for u, _ in merged.document_counts][:3] == ["1", "102", "186"]
    assert len(merged.document_counts) == 10
    same_counts(span_counts_as_mapping(merged.counts), span_counts_as_mapping(whole.counts))
    report = measures_json(merged)
    for triple in every_triple(report):
        for key in SPAN_KEYS:
            assert contains(triple["ci95"][key], triple[key])
    # conlleval's 371/539 precision inside a real spread
    low, high = report["labelled"]["exact"]["ci95"]["precision"]
    assert low < 371 / 539 < high and high - low > 0.02
    # the sample 60 times over: 2400 sentences, runs of 2, 1200 units
    big = tmp_path / "sample60.txt"
    text = sample.read_text(encoding="utf-8")
    big.write_text((text.rstrip("\n") + "\n\n") * 60, encoding="utf-8")
    report = measures_json(measure_file(big, "conll"))
    assert len(report["documents"]) == 1200
    for triple in every_triple(report):
        for key in SPAN_KEYS:
            assert contains(triple["ci95"][key], triple[key])
    assert report["labelled"]["exact"]["precision"] == pytest.approx(371 / 539)


def test_documents_json_does_not_grow_with_the_file(tmp_path: Path) -> None:
    sizes = {}
    for n in (4000, 16000):  # runs of 2 and of 8: 2000 units each
        path = tmp_path / f"{n}.conll"
        sentences = [
            (["B-A", "I-A", "O", "B-B"], ["B-A", "I-A", "O", "B-B" if i % 5 else "B-A"])
            for i in range(n)
        ]
        path.write_text(conll_text(sentences))
        report = measures_json(measure_file(path, "conll", resampling=NO_BOOTSTRAP))
        assert len(report["documents"]) == UNIT_LIMIT
        # the units add up to the categories of the whole file
        gold = sum(d["labelled.gold"] for d in report["documents"].values())
        assert gold == 2 * n == sum(c["gold"] for c in report["labelled"]["categories"].values())
        sizes[n] = len(format_report_json(report).encode())
    # about 2.6 kB a unit (some 40 counts and its 60 or so measures, named in full),
    # whatever the number of sentences
    assert sizes[16000] < 1.2 * sizes[4000] < 1.2 * 6_000_000


# ---------------------------------------------------------------------------
# JSON lines and HAREM documents


def test_jsonl_units_are_the_documents_and_a_repeated_id_loses_nothing(tmp_path: Path) -> None:
    rows = [
        {"id": "d1", "tokens": ["x", "y"], "gold": [[0, 1, "A"]], "system": [[0, 1, "A"]]},
        {"tokens": ["x"], "gold": [[0, 1, "A"]], "system": []},
        {"id": "d1", "tokens": ["x"], "gold": [], "system": [[0, 1, "B"]]},
    ]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    documents = dict(measure_file(path, "jsonl", resampling=NO_BOOTSTRAP).document_counts)
    assert list(documents) == ["d1 (line 1)", "line 2", "d1 (line 3)"]
    assert documents["d1 (line 1)"]["labelled.exact_gold"] == 1
    assert documents["line 2"]["labelled.missing"] == 1
    assert documents["d1 (line 3)"]["labelled.spurious"] == 1


def test_harem_documents_are_units_until_the_limit() -> None:
    # document i: gold PESSOA [0, 2); the system finds [0, i mod 3) (nothing when 0)
    gold = [make_span(0, 2, "PESSOA")]
    docs = [
        (f"HAREM-{i:03d}", count_document(gold, [make_span(0, i % 3, "PESSOA")] if i % 3 else []))
        for i in range(9)
    ]
    # below the limit: one unit per DOCID, the flat counts of each document
    assert list(document_units(docs)) == [(d, span_counts_as_mapping(c)) for d, c in docs]
    # above it (limit 4: 9 documents → runs of 4): consecutive DOCIDs added up
    merged = document_units(docs, limit=4)
    assert [d for d, _ in merged] == ["HAREM-000", "HAREM-004", "HAREM-008"]
    layout = CountLayout()
    first = [layout.counts_row(c) for _, c in docs[:4]]
    assert merged[0][1] == layout.row_mapping([sum(col) for col in zip(*first, strict=True)])
    assert merged[0][1]["labelled.gold"] == 4 and merged[2][1]["labelled.gold"] == 1


def test_unit_lines_are_the_objects_as_json_writes_them(tmp_path: Path) -> None:
    """``per_document`` written from templates is the text of its objects: labels with
    ``%`` and quotes, labels absent from a unit, undefined figures (null)."""
    rng = random.Random(11)
    types = ("A%B", 'Q"t', "PER", "LOC")
    sentences = []
    for _ in range(60):
        n = rng.randint(1, 6)
        gold = [rng.choice(("O", *(f"B-{t}" for t in types))) for _ in range(n)]
        system = [g if rng.random() < 0.5 else rng.choice(("O", "B-PER", "B-A%B")) for g in gold]
        sentences.append((gold, system))
    path = tmp_path / "odd.conll"
    path.write_text(conll_text(sentences), encoding="utf-8")
    report = measure_file(path, "conll", CountOptions(min_overlap=0.5), resampling=NO_BOOTSTRAP)
    figures = report.per_document
    encoded = [
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in figures.items()
    ]
    assert list(unit_lines(figures)) == encoded
    assert any("null" in line for line in encoded)
    assert any("per_label" in line and '"LOC"' not in line for line in encoded)
    # and ``documents``, written from the rows, is the text of each unit's flat counts
    counts = [
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in report.document_counts
    ]
    assert list(document_lines(report.document_counts)) == counts
    assert any(isinstance(v, float) for _, flat in report.document_counts for v in flat.values())
