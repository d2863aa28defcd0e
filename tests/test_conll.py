"""CoNLL reading: conlleval's figures, every scheme, repairs, seqeval as an oracle, bad input."""

from __future__ import annotations

import functools
import gzip
import itertools
import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats import conll
from harem_pipeline.formats.conll import (
    SCHEMES,
    ConllSentence,
    decode_tags,
    encode_spans,
    format_conll,
    parse_conll,
)
from harem_pipeline.measures.spans import compute_measures
from harem_pipeline.model import make_span
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.stages.span_measures import CountOptions, measure_conll

SETTINGS = settings(derandomize=True, deadline=None, max_examples=100)


def bounds(tags: list[str], scheme: str = "lenient") -> tuple[list[tuple[int, int, str]], int]:
    spans, repairs = decode_tags(tags, scheme)
    return [(s, e, "|".join(sorted(labels))) for s, e, labels in spans], repairs


# --------------------------------------------------------------------------
# The oracle: conlleval's own output on the CoNLL-2000 sample.


def read_conlleval(path: Path) -> tuple[dict[str, int], dict[str, tuple[str, str, str, int]]]:
    text = path.read_text()
    head = re.search(
        r"processed (\d+) tokens with (\d+) phrases; found: (\d+) phrases; correct: (\d+)", text
    )
    overall = re.search(r"precision:\s+([\d.]+)%; recall:\s+([\d.]+)%; FB1:\s+([\d.]+)\n", text)
    types = {
        m.group(1): (m.group(2), m.group(3), m.group(4), int(m.group(5)))
        for m in re.finditer(
            r"^\s*(\S+): precision:\s+([\d.]+)%; recall:\s+([\d.]+)%; FB1:\s+([\d.]+)\s+(\d+)$",
            text,
            re.M,
        )
    }
    tokens, gold, found, correct = map(int, head.groups())
    types["__overall__"] = (*overall.groups(), found)
    return {"tokens": tokens, "gold": gold, "found": found, "correct": correct}, types


def pct(x: float | None) -> str:
    return f"{100 * (x or 0.0):.2f}"  # conlleval prints 0.00 for an undefined ratio


def test_exact_measure_reproduces_conlleval_on_conll2000_sample(data_dir: Path) -> None:
    totals, per_type = read_conlleval(data_dir / "conll2000" / "conlleval-output.txt")
    assert totals == {"tokens": 961, "gold": 459, "found": 539, "correct": 371}
    report = measure_file(data_dir / "conll2000" / "sample.txt", "conll")
    match = report.counts.labelled.match
    assert report.tokens == totals["tokens"]
    assert (match.gold, match.system, match.exact_system) == (459, 539, 371)
    exact = report.measures.labelled.exact
    assert (pct(exact.precision), pct(exact.recall), pct(exact.f1)) == ("68.83", "80.83", "74.35")
    assert per_type.pop("__overall__")[:3] == ("68.83", "80.83", "74.35")
    counts = dict(report.counts.per_label)
    measures = dict(report.measures.per_label)
    assert sorted(measures) == sorted(per_type) == ["ADJP", "ADVP", "NP", "PP", "SBAR", "VP"]
    for label, (p, r, f, found) in per_type.items():
        e = measures[label].exact
        assert (pct(e.precision), pct(e.recall), pct(e.f1), counts[label].system) == (
            p,
            r,
            f,
            found,
        ), label


# --------------------------------------------------------------------------
# Decoding and repairs, scheme by scheme (hand-written sequences).


@pytest.mark.parametrize(
    ("scheme", "tags", "expected"),
    [
        ("iob1", ["I-NP", "I-NP", "B-NP", "O", "I-VP"], [(0, 2, "NP"), (2, 3, "NP"), (4, 5, "VP")]),
        (
            "iob2",
            ["B-NP", "I-NP", "B-NP", "B-VP", "I-VP"],
            [(0, 2, "NP"), (2, 3, "NP"), (3, 5, "VP")],
        ),
        ("ioe1", ["I-NP", "E-NP", "I-NP", "O"], [(0, 2, "NP"), (2, 3, "NP")]),
        ("ioe2", ["I-NP", "E-NP", "E-NP", "E-VP"], [(0, 2, "NP"), (2, 3, "NP"), (3, 4, "VP")]),
        (
            "iobes",
            ["B-PER", "E-PER", "S-PER", "O", "S-LOC"],
            [(0, 2, "PER"), (2, 3, "PER"), (4, 5, "LOC")],
        ),
        (
            "bilou",
            ["B-PER", "I-PER", "L-PER", "U-PER", "U-LOC"],
            [(0, 3, "PER"), (3, 4, "PER"), (4, 5, "LOC")],
        ),
    ],
)
def test_valid_sequences_decode_without_repair(scheme, tags, expected) -> None:
    assert bounds(tags, scheme) == (expected, 0)
    assert bounds(tags, "lenient") == (expected, 0)


@pytest.mark.parametrize(
    ("scheme", "tags", "expected", "repairs"),
    [
        # I after O: conlleval opens a chunk there.
        ("iob2", ["O", "I-PER", "I-PER"], [(1, 3, "PER")], 1),
        # I of another type: a new chunk starts at the type change.
        ("iob2", ["B-PER", "I-LOC"], [(0, 1, "PER"), (1, 2, "LOC")], 1),
        # IOB1 uses B only between two chunks of one type.
        ("iob1", ["O", "B-PER", "I-PER"], [(1, 3, "PER")], 1),
        # an IOBES chunk left open at O and at the end of the sentence: 2 repairs.
        ("iobes", ["B-PER", "O", "B-LOC"], [(0, 1, "PER"), (2, 3, "LOC")], 2),
        # an E with nothing before it.
        ("iobes", ["O", "E-PER"], [(1, 2, "PER")], 1),
        # IOE2 needs an E at every chunk end.
        ("ioe2", ["I-PER", "O"], [(0, 1, "PER")], 1),
        # IOE1 uses E only before a chunk of the same type.
        ("ioe1", ["E-PER", "O"], [(0, 1, "PER")], 1),
        # a prefix the scheme does not have: read anyway, counted.
        ("iob2", ["S-PER", "O"], [(0, 1, "PER")], 1),
        ("bilou", ["B-PER", "E-PER"], [(0, 2, "PER")], 1),
        # lenient counts nothing.
        (
            "lenient",
            ["O", "I-PER", "E-LOC", "B-PER"],
            [(1, 2, "PER"), (2, 3, "LOC"), (3, 4, "PER")],
            0,
        ),
    ],
)
def test_invalid_sequences_are_repaired_the_conlleval_way_and_counted(
    scheme, tags, expected, repairs
) -> None:
    assert bounds(tags, scheme) == (expected, repairs)
    assert bounds(tags, "lenient")[0] == expected  # the repair is conlleval's reading


SENTENCE_LENGTHS = st.integers(1, 15)
CUTS = functools.cache(lambda n: st.sets(st.integers(0, n), max_size=8))
"""The cuts of a sentence of n tokens, one strategy for each n."""
SPAN_LABELS = st.sampled_from(["PER", "LOC"])


@st.composite
def sentence_spans(draw):
    n = draw(SENTENCE_LENGTHS)
    cuts = sorted(draw(CUTS(n)) | {0, n})
    spans = []
    for start, end in itertools.pairwise(cuts):
        if start < end and draw(st.booleans()):
            spans.append(make_span(start, end, draw(SPAN_LABELS)))
    return n, spans


@SETTINGS
@given(sentence_spans(), st.sampled_from(SCHEMES))
def test_encode_then_decode_is_identity_in_every_scheme(sentence, scheme) -> None:
    n, spans = sentence
    tags = encode_spans(spans, n, scheme)
    # IO cannot mark where a span of one type ends and the next of that type begins
    expected = merge_adjacent(spans) if scheme == "io" else spans
    assert decode_tags(tags, scheme) == (expected, 0)


def merge_adjacent(spans):
    """Spans with every run of touching same-label spans made one (what IO tags can say)."""
    merged = []
    for start, end, labels in sorted(spans):
        if merged and merged[-1][1] == start and merged[-1][2] == labels:
            merged[-1] = (merged[-1][0], end, labels)
        else:
            merged.append((start, end, labels))
    return merged


@SETTINGS
@given(st.lists(sentence_spans(), min_size=1, max_size=4), st.sampled_from(SCHEMES))
def test_parse_of_format_is_identity(sentences, scheme) -> None:
    if scheme == "io":  # IO has no way to write two touching spans of one type
        sentences = [(n, merge_adjacent(gold)) for n, gold in sentences]
    docs = [ConllSentence(0, n, tuple(gold), tuple(gold[::2])) for n, gold in sentences]
    text = format_conll(docs, scheme)
    back = list(parse_conll(text.splitlines(keepends=True), "x.conll", scheme))
    assert [(d.tokens, d.gold, d.system) for d in back] == [
        (d.tokens, d.gold, d.system) for d in docs
    ]
    assert format_conll(back, scheme) == text


# --------------------------------------------------------------------------
# seqeval (default mode) as an independent implementation of the exact measure.

TAGS = ["O", "O", "B-PER", "I-PER", "E-PER", "S-PER", "B-LOC", "I-LOC", "E-LOC", "S-LOC", "I-ORG"]


def to_lines(sentences: list[tuple[list[str], list[str]]]) -> list[str]:
    lines = []
    for gold, system in sentences:
        lines += [f"w{i} X {g} {s}\n" for i, (g, s) in enumerate(zip(gold, system, strict=True))]
        lines.append("\n")
    return lines


def assert_equals_seqeval(sentences: list[tuple[list[str], list[str]]], counts) -> None:
    # imported here: seqeval brings scikit-learn and SciPy, seconds of import for each
    # process that collects this module
    from seqeval.metrics.sequence_labeling import precision_recall_fscore_support

    y_true = [g for g, _ in sentences]
    y_pred = [s for _, s in sentences]
    measures = compute_measures(counts)
    ours = dict(measures.per_label)
    p, r, f, support = precision_recall_fscore_support(y_true, y_pred, zero_division=0)
    labels = sorted(ours)
    assert len(labels) == len(p)
    per_label_counts = dict(counts.per_label)
    for i, label in enumerate(labels):
        e = ours[label].exact
        assert support[i] == per_label_counts[label].gold
        assert (e.precision or 0.0) == pytest.approx(p[i]), label
        assert (e.recall or 0.0) == pytest.approx(r[i]), label
        assert (e.f1 or 0.0) == pytest.approx(f[i]), label
    mp, mr, mf, _ = precision_recall_fscore_support(
        y_true, y_pred, average="micro", zero_division=0
    )
    e = measures.labelled.exact
    assert ((e.precision or 0.0), (e.recall or 0.0), (e.f1 or 0.0)) == pytest.approx((mp, mr, mf))


@functools.cache
def tag_pairs(n: int) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    """Gold and system tags of a sentence of n tokens, one strategy for each n (built anew
    at each draw it costs its construction and checks; the values drawn are the same)."""
    return st.tuples(
        st.lists(st.sampled_from(TAGS), min_size=n, max_size=n),
        st.lists(st.sampled_from(TAGS), min_size=n, max_size=n),
    )


@SETTINGS
@given(st.lists(st.integers(1, 12).flatmap(tag_pairs), min_size=1, max_size=6))
def test_exact_measure_equals_seqeval_on_random_tag_sequences(sentences) -> None:
    counts, _repairs, number, _tokens, documents, _equal = measure_conll(
        to_lines(sentences), "random.conll"
    )
    assert (number, documents) == (len(sentences), 0)  # sentences, no -DOCSTART- line
    assert_equals_seqeval(sentences, counts)


def test_exact_measure_equals_seqeval_on_a_generated_file(tmp_path: Path) -> None:
    rng = random.Random(20260)
    sentences = []
    for _ in range(2000):
        n = rng.randint(1, 25)
        gold = [rng.choice(TAGS) for _ in range(n)]
        system = [t if rng.random() < 0.7 else rng.choice(TAGS) for t in gold]
        sentences.append((gold, system))
    path = tmp_path / "generated.conll.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("-DOCSTART- -X- O O\n\n")
        handle.writelines(to_lines(sentences))
    report = measure_file(path, "conll", CountOptions("iobes"))
    assert (report.documents, report.sentences) == (1, 2000)  # one -DOCSTART- document
    assert report.repairs.gold > 0 and report.repairs.system > 0  # random tags break IOBES
    assert_equals_seqeval(sentences, report.counts)


# --------------------------------------------------------------------------
# Layout, streaming and bad input.


def test_docstart_and_blank_lines_separate_sentences() -> None:
    lines = ["-DOCSTART- -X- O O\n", "\n", "a X B-A B-A\n", "-DOCSTART- -X- O O\n", "b X I-A I-A\n"]
    sentences = list(parse_conll(lines, "f"))
    assert [(s.line, s.tokens) for s in sentences] == [(3, 1), (5, 1)]
    # I-A after a sentence break starts a new chunk.
    assert [s.gold for s in sentences] == [((0, 1, frozenset({"A"})),), ((0, 1, frozenset({"A"})),)]


def test_parse_conll_streams_in_bounded_chunks() -> None:
    # An endless input: parsing must hand out sentences without reading it all.
    def endless():
        for i in itertools.count():
            yield f"w{i} X B-A O\n"
            yield "\n"

    first = list(itertools.islice(parse_conll(endless(), "f"), 3))
    assert [(s.line, s.gold, s.system) for s in first] == [
        (1, ((0, 1, frozenset({"A"})),), ()),
        (3, ((0, 1, frozenset({"A"})),), ()),
        (5, ((0, 1, frozenset({"A"})),), ()),
    ]


def test_line_numbers_survive_chunk_boundaries_and_blank_runs() -> None:
    lines = []
    for _ in range(20000):  # more than one chunk of lines
        lines += ["a X O O\n", "b X B-A B-A\n", "\n", "  \n"]
    lines.append("c X B-A Q-A\n")
    bad = len(lines)
    with pytest.raises(InputError, match=f"f, line {bad}: expected a tag"):
        list(parse_conll(lines, "f"))


@pytest.mark.parametrize(
    "names",
    [
        {"A": "LOCALIZACAO", "B": "LOCALIZACAX"},  # past the packed key's 7 characters
        {"A": "人名", "B": "地名"},  # characters wider than a byte
        {"A": "a\x00", "B": "a"},  # a NUL inside a tag, lengths telling them apart
    ],
)
def test_tags_of_any_length_and_alphabet_read_as_short_ones(names) -> None:
    # The reader looks short one-byte tags up by a packed key and cuts the others
    # out of the text: both must give the same sentences.
    rng = random.Random(7)
    tags = ["O", "B-A", "I-A", "B-B", "I-B", "E-A", "S-B"]
    lines = []
    for _ in range(300):
        lines += [f"w X {rng.choice(tags)} {rng.choice(tags)}\n" for _ in range(rng.randint(1, 9))]
        lines.append("\n")

    def renamed(line: str) -> str:
        return re.sub(r"-([AB])\b", lambda m: "-" + names[m.group(1)], line)

    short = list(parse_conll(lines, "f", "iobes"))
    long = list(parse_conll([renamed(line) for line in lines], "f", "iobes"))
    back = {frozenset({v}): frozenset({k}) for k, v in names.items()}
    assert [(s.line, s.tokens, s.gold_repairs, s.system_repairs, s.equal_tags) for s in long] == [
        (s.line, s.tokens, s.gold_repairs, s.system_repairs, s.equal_tags) for s in short
    ]
    assert [[(a, b, back[k]) for a, b, k in s.gold + s.system] for s in long] == [
        list(s.gold + s.system) for s in short
    ]


def test_non_ascii_labels_in_latin1_file(tmp_path: Path) -> None:
    path = tmp_path / "pt.conll"
    path.write_bytes("Lisboa X B-LOCALIZAÇÃO B-LOCALIZAÇÃO\n".encode("iso8859-1"))
    report = measure_file(path, "conll")
    assert [label for label, _ in report.counts.per_label] == ["LOCALIZAÇÃO"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["a X B-A B-A\n", "b B-A\n"], "f.conll, line 2: expected at least 3 columns"),
        (
            ["a X B-A B-A\n", "\n", "b X Q-A O\n"],
            "f.conll, line 3: expected a tag O, or B/I/E/S/L/U alone",
        ),
        (["a X B- O\n"], "f.conll, line 1: expected a tag O"),
        (["a X O PER\n"], "f.conll, line 1: expected a tag O"),
    ],
)
def test_bad_lines_raise_one_line_input_error(lines, message) -> None:
    with pytest.raises(InputError) as exc:
        list(parse_conll(lines, "f.conll"))
    assert str(exc.value).startswith(message)
    assert "\n" not in str(exc.value)


def test_unknown_scheme_is_an_input_error() -> None:
    with pytest.raises(InputError, match="tagging scheme"):
        decode_tags(["O"], "bioul")


def test_crlf_tabs_and_extra_columns_read_like_plain_lines(tmp_path: Path, data_dir: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    plain = measure_file(sample, "conll").counts
    text = sample.read_text()
    variant = tmp_path / "variant.conll"
    rows = [("\t".join(["x", *line.split()]) if line.strip() else "") for line in text.split("\n")]
    variant.write_bytes("\r\n".join(rows).encode("utf-8"))
    assert measure_file(variant, "conll").counts == plain


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 255), min_size=1, max_size=60),
    st.data(),
    st.booleans(),
)
def test_packed_keys_are_each_fields_bytes_and_length(chars, data, wide) -> None:
    """``_pack`` (a strided eight-byte view) against the key written out byte by byte, for
    one-byte text and for text held as wider integers."""
    codes = np.array([*chars, *[0] * conll._PACKED], dtype=np.uint32 if wide else np.uint8)
    starts = np.array(data.draw(st.lists(st.integers(0, len(chars) - 1), max_size=20)), np.int64)
    lengths = np.array(
        [data.draw(st.integers(0, min(conll._PACKED, len(chars) - s))) for s in starts], np.int64
    )
    expected = [
        (int(n) << 56) | sum(int(codes[s + k]) << (8 * k) for k in range(int(n)))
        for s, n in zip(starts, lengths, strict=True)
    ]
    assert conll._pack(codes, starts, lengths).tolist() == expected


_DOCUMENT_PIECES = st.sampled_from(
    [
        "-DOCSTART-",
        "-DOCSTART-x",
        "x-DOCSTART-",
        " ",
        "\t",
        "\u00a0",
        "\x1c",
        "\u3000",
        "\r",
        "x",
        "\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_DOCUMENT_PIECES, max_size=30))
def test_document_lines_are_those_whose_first_field_is_docstart(pieces: list[str]) -> None:
    """The one rule of a document line, against ``str.split`` line by line (unicode
    blanks and look-alikes); the cutter's last document is the rule's last."""
    text = "".join(pieces) + "\n"
    expected = [n for n, line in enumerate(text.split("\n")) if line.split()[:1] == ["-DOCSTART-"]]
    found = [text.count("\n", 0, at) for at in conll.document_starts(text)]
    assert found == expected
    assert conll._last_document(text, 10) == (10 + expected[-1] if expected else 0)
