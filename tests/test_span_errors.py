"""Error listings, confusion, macro and per-unit figures, token accuracy, IO and typeless
tags, label filters and the minimum overlap of ``harem measures``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.formats.conll import decode_tags
from harem_pipeline.formats.jsontext import write_report_json
from harem_pipeline.measures.resampling import NO_BOOTSTRAP
from harem_pipeline.model import Span, make_span
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.reports.measures import measures_json
from harem_pipeline.stages.span_errors import ERROR_FIELDS
from harem_pipeline.stages.span_measures import CountOptions
from harem_pipeline.stages.spans import (
    KIND_NAMES,
    KINDS_BY_SIDE,
    SIDES,
    LabelFilter,
    Listing,
    count_document,
    equal_token_tags,
)
from tests.helpers.harem_pair import CD, RUN
from tests.helpers.span_strategies import documents, free_spans

SETTINGS = settings(derandomize=True, deadline=None, max_examples=60)

# One error of every kind (file lines 1-10, a blank line 11, lines 12-13):
#   Vila Real     LOC = LOC           correct
#   Lisboa        LOC / ORG           label error (both sides)
#   João Silva    PER / PER "João"    boundary error (both sides)
#   viu           - / MISC            spurious
#   Benfica       ORG / -             missing
#   Banco Central ORG / PER "Banco"   label and boundary error (both sides)
SMALL = """\
Vila X B-LOC B-LOC
Real X I-LOC I-LOC
em X O O
Lisboa X B-LOC B-ORG
e X O O
João X B-PER B-PER
Silva X I-PER O
viu X O B-MISC
o X O O
Benfica X B-ORG O

Banco X B-ORG B-PER
Central X I-ORG O
"""


def entry(kind, side, label, start, end, text, sentence, other, document=None) -> dict:
    return dict(
        zip(
            ERROR_FIELDS,
            (kind, side, label, start, end, text, document, sentence, other),
            strict=True,
        )
    )


SMALL_ERRORS = [
    entry("label_error", "gold", "LOC", 3, 4, "Lisboa", 1, [[3, 4, "ORG"]]),
    entry("label_error", "system", "ORG", 3, 4, "Lisboa", 1, [[3, 4, "LOC"]]),
    entry("boundary_error", "gold", "PER", 5, 7, "João Silva", 1, [[5, 6, "PER"]]),
    entry("boundary_error", "system", "PER", 5, 6, "João", 1, [[5, 7, "PER"]]),
    entry("spurious", "system", "MISC", 7, 8, "viu", 1, []),
    entry("missing", "gold", "ORG", 9, 10, "Benfica", 1, []),
    entry("label_boundary_error", "gold", "ORG", 0, 2, "Banco Central", 12, [[0, 1, "PER"]]),
    entry("label_boundary_error", "system", "PER", 0, 1, "Banco", 12, [[0, 2, "ORG"]]),
]
SMALL_CONFUSION = {
    "LOC": {"LOC": 1, "ORG": 1},
    "ORG": {"(missing)": 1, "(boundary)": 1},
    "PER": {"(boundary)": 1},
    "(spurious)": {"MISC": 1},
    "(boundary)": {"PER": 2},
}


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.conll"
    path.write_text(SMALL, "utf-8")
    return path


def run_json(capsys, *argv: str) -> dict:
    assert main(["measures", *argv, "--json", "--bootstrap", "0"]) == 0
    return json.loads(capsys.readouterr().out)


def test_one_error_of_each_kind(capsys, small: Path) -> None:
    out = run_json(capsys, str(small), "--format", "conll")
    assert out["errors"] == SMALL_ERRORS
    categories = out["labelled"]["categories"]
    for kind in KIND_NAMES:
        for side in ("gold", "system"):
            listed = sum(1 for e in out["errors"] if (e["kind"], e["side"]) == (kind, side))
            assert listed == categories[kind][side], (kind, side)
    assert categories["correct"] == {"gold": 1, "system": 1}
    assert out["confusion"] == SMALL_CONFUSION
    # 12 tokens; tags differ on Lisboa, Silva, viu, Benfica, Banco and Central
    assert out["token_accuracy"] == 6 / 12
    # per label exact: LOC P 1/1 R 1/2 F 2/3; ORG P 0/1 R 0/2 F 0; PER P 0/2 R 0/1 F 0;
    # MISC P 0/1, R undefined (no gold MISC), F undefined: left out of the macro mean
    macro = out["macro"]["exact"]
    assert macro["precision"] == pytest.approx((1 + 0 + 0 + 0) / 4)
    assert macro["recall"] == pytest.approx((1 / 2 + 0 + 0) / 3)
    assert macro["f1"] == pytest.approx((2 / 3 + 0 + 0) / 3)


def test_per_document_figures_are_the_units_own(capsys, small: Path) -> None:
    out = run_json(capsys, str(small), "--format", "conll")
    # two sentences, so two units, named by their first lines
    assert list(out["per_document"]) == ["1", "12"] == list(out["documents"])
    first, second = out["per_document"]["1"], out["per_document"]["12"]
    # sentence 1: gold LOC LOC PER ORG, system LOC ORG PER MISC; one exact match
    assert first["labelled"]["exact"] == {"precision": 1 / 4, "recall": 1 / 4, "f1": 1 / 4}
    assert second["labelled"]["exact"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert second["unlabelled"]["overlap"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert sorted(second["per_label"]) == ["ORG", "PER"]  # only the unit's labels
    assert second["per_label"]["PER"]["exact"]["recall"] is None


def test_errors_table_and_text_short_forms(capsys, small: Path, tmp_path: Path) -> None:
    table = tmp_path / "errors.tsv"
    assert main(["measures", str(small), "--format", "conll", "--errors", str(table)]) == 0
    text = capsys.readouterr().out
    lines = table.read_text("utf-8").splitlines()
    assert lines[0].split("\t") == list(ERROR_FIELDS)
    assert lines[3].split("\t") == [
        "boundary_error",
        "gold",
        "PER",
        "5",
        "7",
        "João Silva",
        "",
        "1",
        "5-6 PER",
    ]
    assert len(lines) == 1 + len(SMALL_ERRORS)
    assert 'boundary_error gold PER 5-7 "João Silva" (line 1) ~ 5-6 PER' in text
    assert 'missing gold ORG 9-10 "Benfica" (line 1) ~ nothing' in text
    assert "errors: 8 (the first 8; all in --json and --errors)" in text
    assert "token accuracy: 50.00" in text
    confusion = text[text.index("confusion") :].splitlines()
    assert confusion[1].split() == [
        "gold",
        "\\",
        "system",
        "LOC",
        "MISC",
        "ORG",
        "PER",
        "(missing)",
        "(boundary)",
    ]
    assert confusion[2].split() == ["LOC", "1", "1"]


def test_the_conlleval_sample(capsys, data_dir: Path) -> None:
    out = run_json(capsys, str(data_dir / "conll2000" / "sample.txt"), "--format", "conll")
    # conlleval-output.txt: "accuracy:  84.08%"; found 539, correct 371, 459 phrases
    assert round(100 * out["token_accuracy"], 2) == 84.08
    categories = out["labelled"]["categories"]
    kinds = Counter((e["kind"], e["side"]) for e in out["errors"])
    assert len(out["errors"]) == (539 - 371) + (459 - 371)
    for kind in KIND_NAMES:
        for side in ("gold", "system"):
            assert kinds[kind, side] == categories[kind][side]
    diagonal = sum(row.get(label, 0) for label, row in out["confusion"].items())
    assert diagonal == 371
    for label, row in out["confusion"].items():
        if not label.startswith("("):
            figures = out["per_label"][label]["exact"]
            gold = sum(row.values())
            assert figures["recall"] == pytest.approx(row.get(label, 0) / gold)


# --------------------------------------------------------------------------
# Properties over random files


TAG = st.sampled_from(["O", "O", "B-A", "I-A", "B-B", "I-B", "E-A", "S-B", "B", "I"])
SENTENCE = st.integers(1, 10).flatmap(
    lambda n: st.tuples(
        st.lists(TAG, min_size=n, max_size=n), st.lists(TAG, min_size=n, max_size=n)
    )
)


@SETTINGS
@given(st.lists(SENTENCE, min_size=1, max_size=6))
def test_errors_and_confusion_agree_with_the_counts(tmp_path_factory, sentences) -> None:
    path = tmp_path_factory.mktemp("p") / "r.conll"
    path.write_text(
        "".join(
            "".join(f"w{i} {g} {s}\n" for i, (g, s) in enumerate(zip(*pair, strict=True))) + "\n"
            for pair in sentences
        )
    )
    report = measure_file(path, "conll", CountOptions(errors=True), resampling=NO_BOOTSTRAP)
    try:
        records = list(report.errors.records())
        out = measures_json(report)
    finally:
        report.errors.close()
    categories = out["labelled"]["categories"]
    kinds = Counter((e["kind"], e["side"]) for e in records)
    for kind in KIND_NAMES:
        for side in ("gold", "system"):
            assert kinds[kind, side] == categories[kind][side]
    # each label's row adds up to its gold spans, its column to its system spans,
    # and the diagonal is its exact matches
    confusion = out["confusion"]
    per_label = dict(report.counts.per_label)
    for label, counts in per_label.items():
        assert sum(confusion.get(label, {}).values()) == counts.gold
        assert sum(row.get(label, 0) for row in confusion.values()) == counts.system
        assert confusion.get(label, {}).get(label, 0) == counts.exact_gold
    equal = sum(g == s for gold, system in sentences for g, s in zip(gold, system, strict=True))
    assert report.token_accuracy == equal / sum(len(g) for g, _ in sentences)


@SETTINGS
@given(documents(free_spans))
def test_errors_of_any_spans_match_their_categories(docs) -> None:
    for gold, system in docs:
        listing = Listing()
        counts = count_document(gold, system, listing=listing)
        kinds = Counter(
            (KINDS_BY_SIDE[batch.gold][batch.category[i]], SIDES[batch.gold])
            for batch in listing.pending
            for i in range(len(batch.start))
        )
        c = counts.labelled.categories
        assert kinds["label_error", "gold"] == c.gold_label_error
        assert kinds["label_error", "system"] == c.system_label_error
        assert kinds["boundary_error", "gold"] == c.gold_boundary_error
        assert kinds["boundary_error", "system"] == c.system_boundary_error
        assert kinds["label_boundary_error", "gold"] == c.gold_label_boundary_error
        assert kinds["label_boundary_error", "system"] == c.system_label_boundary_error
        assert kinds["missing", "gold"] == c.missing
        assert kinds["spurious", "system"] == c.spurious


def naive_overlap(gold: list[Span], system: list[Span], share: float) -> tuple[int, int]:
    """Overlap hits under a minimum share of the gold span, pair by pair."""

    def ok(s: Span, g: Span) -> bool:
        shared = min(s[1], g[1]) - max(s[0], g[0])
        return shared > 0 and shared >= share * (g[1] - g[0]) and bool(s[2] & g[2])

    return (
        sum(any(ok(s, g) for g in gold) for s in system),
        sum(any(ok(s, g) for s in system) for g in gold),
    )


@SETTINGS
@given(documents(free_spans), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))
def test_min_overlap_equals_a_naive_reading(docs, share) -> None:
    for gold, system in docs:
        counts = count_document(gold, system, share)
        plain = count_document(gold, system)
        m = counts.labelled.match
        assert (m.overlap_system, m.overlap_gold) == naive_overlap(gold, system, share)
        # only the overlap measure moves
        assert counts.labelled.categories == plain.labelled.categories
        assert m.intersection_system == plain.labelled.match.intersection_system
        assert m.exact_gold == plain.labelled.match.exact_gold


# --------------------------------------------------------------------------
# Minimum overlap, schemes, filters


def test_min_overlap_on_the_spec_example() -> None:
    # docs/spec/measures.md: gold [0,4) A, [6,8) B; system [2,6) A, [6,7) B, [7,9) A.
    # [2,6) covers 2 of A's 4 tokens, [6,7) 1 of B's 2: both pairs reach 0.5, neither 0.6;
    # unlabelled, [7,9) covers 1 of B's 2 as well.
    gold = [make_span(0, 4, "A"), make_span(6, 8, "B")]
    system = [make_span(2, 6, "A"), make_span(6, 7, "B"), make_span(7, 9, "A")]
    for share, labelled, unlabelled in ((0.0, (2, 2), (3, 2)), (0.5, (2, 2), (3, 2))):
        counts = count_document(gold, system, share)
        m, u = counts.labelled.match, counts.unlabelled.match
        assert (m.overlap_system, m.overlap_gold) == labelled
        assert (u.overlap_system, u.overlap_gold) == unlabelled
    counts = count_document(gold, system, 0.6)
    assert (counts.labelled.match.overlap_system, counts.labelled.match.overlap_gold) == (0, 0)
    assert counts.unlabelled.match.overlap_system == 0
    # the intersection measure keeps its worked values (P = 1.5/3, R = 1.0/2)
    assert counts.labelled.match.intersection_system == 1.5
    assert counts.labelled.match.intersection_gold == 1.0


def test_min_overlap_through_the_command(capsys, small: Path) -> None:
    # João Silva (gold PER, 2 tokens) against "João" (1 token): 0.5 of the gold span
    half = run_json(capsys, str(small), "--format", "conll", "--min-overlap", "0.5")
    more = run_json(capsys, str(small), "--format", "conll", "--min-overlap", "0.51")
    assert half["per_label"]["PER"]["overlap"]["recall"] == 1.0
    assert more["per_label"]["PER"]["overlap"]["recall"] == 0.0
    assert more["signature"].endswith("|overlap:0.51|boot:0|seed:12345")
    assert "overlap:" not in run_json(capsys, str(small), "--format", "conll")["signature"]


@pytest.mark.parametrize(
    ("tags", "scheme", "spans", "repairs"),
    [
        # IO: a run of one type is one span; a B prefix is not IO (repaired, counted)
        (
            ["I-PER", "I-PER", "I-LOC", "O", "I-PER"],
            "io",
            [(0, 2, "PER"), (2, 3, "LOC"), (4, 5, "PER")],
            0,
        ),
        (["B-PER", "I-PER", "O"], "io", [(0, 2, "PER")], 1),
        # typeless tags: one label, "_"
        (["B", "I", "O", "B", "B"], "lenient", [(0, 2, "_"), (3, 4, "_"), (4, 5, "_")], 0),
        (["I", "I", "O", "I"], "io", [(0, 2, "_"), (3, 4, "_")], 0),
        (["S", "B", "E", "O", "U"], "iobes", [(0, 1, "_"), (1, 3, "_"), (4, 5, "_")], 1),
        (["U", "B", "L"], "bilou", [(0, 1, "_"), (1, 3, "_")], 0),
        (["I", "B", "I"], "iob1", [(0, 1, "_"), (1, 3, "_")], 0),
        (["I", "I", "B-X"], "iob2", [(0, 2, "_"), (2, 3, "X")], 1),
    ],
)
def test_io_and_typeless_tags(tags, scheme, spans, repairs) -> None:
    assert decode_tags(tags, scheme) == ([make_span(*s) for s in spans], repairs)


def test_io_scheme_through_the_command(capsys, tmp_path: Path) -> None:
    path = tmp_path / "io.conll"
    path.write_text("a X I-PER I-PER\nb X I-PER B-PER\nc X O I-LOC\n")
    out = run_json(capsys, str(path), "--format", "conll", "--scheme", "io")
    # gold PER [0,2); system PER [0,1), PER [1,2) (the B starts one; one repair), LOC [2,3)
    assert out["repairs"] == {"gold": 0, "system": 1}
    assert out["labelled"]["categories"]["boundary_error"] == {"system": 2, "gold": 1}
    assert out["labelled"]["categories"]["spurious"] == {"system": 1, "gold": 0}
    assert "|scheme:io|" in out["signature"]


def test_labels_and_ignore_restrict_everything_alike(capsys, small: Path) -> None:
    out = run_json(capsys, str(small), "--format", "conll", "--labels", "LOC,PER")
    assert sorted(out["per_label"]) == ["LOC", "PER"]
    assert {e["label"] for e in out["errors"]} == {"LOC", "PER"}
    # Lisboa (gold LOC) is now missing: the system's ORG is left out
    assert entry("missing", "gold", "LOC", 3, 4, "Lisboa", 1, []) in out["errors"]
    categories = out["labelled"]["categories"]
    assert sum(c["gold"] for c in categories.values()) == 3  # Vila Real, Lisboa, João Silva
    assert sum(c["system"] for c in categories.values()) == 3  # Vila Real, João, Banco
    assert "|labels:LOC,PER|" in out["signature"]
    ignored = run_json(capsys, str(small), "--format", "conll", "--ignore", "ORG,MISC")
    assert ignored["labelled"] == out["labelled"]
    assert ignored["errors"] == out["errors"]
    assert "|ignore:MISC,ORG|" in ignored["signature"]
    # token accuracy is of the tags as written, whatever labels are scored
    assert ignored["token_accuracy"] == out["token_accuracy"] == 6 / 12


def test_label_filter_keeps_part_of_a_vague_set() -> None:
    keep = LabelFilter({"A"})
    spans = [make_span(0, 1, "A|B"), make_span(1, 2, "B"), make_span(2, 3, "A")]
    assert keep(spans) == (make_span(0, 1, "A"), make_span(2, 3, "A"))
    assert LabelFilter(ignore={"A"})(spans) == (make_span(0, 1, "B"), make_span(1, 2, "B"))


def test_token_tags_of_span_formats() -> None:
    # gold A[0,2) ; system A[0,1) A[1,2): token 1 is I-A against B-A
    gold, system = [make_span(0, 2, "A")], [make_span(0, 1, "A"), make_span(1, 2, "A")]
    assert equal_token_tags(gold, system, 4) == 3
    assert equal_token_tags(gold, gold, 4) == 4
    assert equal_token_tags([], [make_span(3, 4, "B")], 4) == 3


# --------------------------------------------------------------------------
# HAREM mode


def harem_files(tmp_path: Path) -> list[str]:
    (tmp_path / "cd.xml").write_text(CD, "utf-8")
    (tmp_path / "run.xml").write_text(RUN, "utf-8")
    return ["--cd", str(tmp_path / "cd.xml"), "--run", str(tmp_path / "run.xml")]


def test_harem_errors_name_documents_and_text(capsys, tmp_path: Path) -> None:
    out = run_json(capsys, *harem_files(tmp_path))
    errors = out["errors"]
    assert (
        entry("boundary_error", "gold", "PESSOA", 0, 2, "Ana Silva", None, [[0, 1, "PESSOA"]], "d1")
        in errors
    )
    assert (
        entry(
            "label_error", "system", "PESSOA", 3, 5, "Porto Alegre", None, [[3, 5, "LOCAL"]], "d1"
        )
        in errors
    )
    # "Hoje" has no category in the run: its label set is empty
    assert entry("label_error", "gold", "TEMPO", 0, 1, "Hoje", None, [[0, 1, ""]], "d2") in errors
    categories = out["labelled"]["categories"]
    kinds = Counter((e["kind"], e["side"]) for e in errors)
    for kind in KIND_NAMES:
        for side in ("gold", "system"):
            assert kinds[kind, side] == categories[kind][side]
    # the vague ORGANIZACAO|LOCAL bank against LOCAL: correct, off the diagonal by name
    assert out["confusion"]["LOCAL|ORGANIZACAO"] == {"LOCAL": 1}


def test_harem_selective_scores_the_declared_categories(capsys, tmp_path: Path) -> None:
    files = harem_files(tmp_path)
    # as tests/test_harem_spans.py::test_veil_keeps_its_categories: exact P = R = 2/3
    veiled = run_json(capsys, *files, "--veil", "LOCAL")
    selective = run_json(capsys, *files, "--selective", "--system-veil", "LOCAL")
    for out in (veiled, selective):
        assert out["labelled"]["exact"]["precision"] == pytest.approx(2 / 3)
        assert out["labelled"]["exact"]["recall"] == pytest.approx(2 / 3)
        assert set(out["per_label"]) == {"LOCAL"}
    assert "|veil:LOCAL|alt:best|" in veiled["signature"]
    assert "|veil:LOCAL|selective:yes|alt:best|" in selective["signature"]
    everything = run_json(capsys, *files)
    assert "veil:" not in everything["signature"]
    assert everything["labelled"]["exact"]["recall"] == pytest.approx(2 / 5)  # R 40.00


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--selective"], "--system-veil for the selective scenario"),
        (["--selective", "--system-veil", ""], "--system-veil for the selective scenario"),
        (["--selective", "--system-veil", "LOCAL", "--veil", "LOCAL"], "either --veil or"),
        (["--veil", "NADA"], "--veil"),
    ],
)
def test_harem_veil_options_fail_loud(capsys, tmp_path: Path, extra, message) -> None:
    assert main(["measures", *harem_files(tmp_path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--min-overlap", "1.5"], "--min-overlap: expected a number from 0 to 1, found '1.5'"),
        (["--min-overlap", "x"], "--min-overlap: expected a number from 0 to 1, found 'x'"),
        (["--labels", "A,,B"], "--labels: expected labels separated by commas (A,B), found"),
        (["--veil", "LOCAL"], "expected --veil/--system-veil/--selective only with --cd"),
    ],
)
def test_file_options_fail_loud(capsys, small: Path, extra, message) -> None:
    assert main(["measures", str(small), "--format", "conll", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_errors_table_must_not_replace_the_input(capsys, small: Path) -> None:
    before = small.read_bytes()
    assert main(["measures", str(small), "--format", "conll", "--errors", str(small)]) == 2
    assert "--errors: expected a file other than the inputs" in capsys.readouterr().err
    assert small.read_bytes() == before


def test_scoring_a_file_loads_no_harem_reader() -> None:
    # the CoNLL and JSON-lines path starts fast: no collection reader, aligner or chain
    code = (
        "import sys, harem_pipeline.cli.measures\n"
        "print(' '.join(m for m in sys.modules if m.startswith('harem_pipeline')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    for heavy in ("formats.harem_xml", "formats.alinhado", "stages.align", "pipeline.params"):
        assert f"harem_pipeline.{heavy}" not in loaded


def test_json_lines_errors_name_the_document_and_its_line(capsys, tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    lines = [
        {"id": "a", "tokens": ["x"], "gold": [], "system": []},
        {
            "id": "b",
            "tokens": ["Sergei", "Lazarev", "cantou"],
            "gold": [[0, 2, "PER"]],
            "system": [[0, 1, "PER"], [2, 3, "LOC|MISC"]],
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    out = run_json(capsys, str(path), "--format", "jsonl")
    assert out["errors"] == [
        entry("boundary_error", "gold", "PER", 0, 2, "Sergei Lazarev", 2, [[0, 1, "PER"]], "b"),
        entry("boundary_error", "system", "PER", 0, 1, "Sergei", 2, [[0, 2, "PER"]], "b"),
        entry("spurious", "system", "LOC|MISC", 2, 3, "cantou", 2, [], "b"),
    ]
    assert out["confusion"] == {
        "PER": {"(boundary)": 1},
        "(spurious)": {"LOC|MISC": 1},
        "(boundary)": {"PER": 1},
    }
    # tokens: x (no span either side), Sergei (B-PER both), Lazarev (I-PER / none),
    # cantou (none / B-LOC|MISC): 2 of 4 agree
    assert out["token_accuracy"] == 2 / 4


@pytest.mark.parametrize("items", [0, 1, 5000])
@pytest.mark.parametrize("head", [{}, {"a": [0.5, 1.0]}])
def test_streamed_arrays_are_written_as_json(items, head) -> None:
    out = io.StringIO()
    lines = (json.dumps({"n": i}) for i in range(items))
    obj = {**head, "documents": {"d": {"x": 1}}}
    write_report_json(out, obj, {"errors": lines})
    text = out.getvalue()
    assert json.loads(text) == {**head, "errors": [{"n": i} for i in range(items)], **obj}
    assert list(json.loads(text)) == [*head, "errors", "documents"]
    if items:
        assert text.count('\n    {"n": ') == items  # one entry a line
