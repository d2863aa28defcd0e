"""Hypothesis strategies of span documents, shared by the span-measure tests."""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from harem_pipeline.formats.conll import decode_tags
from harem_pipeline.model import Span, make_span

LABELS = ("A", "B", "C")
LABEL_SETS = st.sets(st.sampled_from(LABELS), min_size=1, max_size=2)
CONLL_TAGS = st.sampled_from(["O", "B-A", "I-A", "B-B", "I-B", "B-C"])
SPAN_COUNTS = st.integers(0, 5)
DOCUMENT_COUNTS = st.integers(1, 4)
TOKEN_COUNTS = st.integers(1, 12)
"""Strategies the composites draw from, built once (built anew at each draw they cost their
construction and checks each time; the values drawn are the same)."""


@functools.cache
def tag_columns(n: int) -> st.SearchStrategy[list[str]]:
    return st.lists(CONLL_TAGS, min_size=n, max_size=n)


@functools.cache
def spans_over(kind, n: int) -> st.SearchStrategy[list[Span]]:
    """``kind(n)``, built once for each kind and number of tokens."""
    return kind(n)


@st.composite
def free_spans(draw, n: int) -> list[Span]:
    """Any spans over ``n`` tokens: they may overlap, nest or repeat; labels may be vague."""
    out = []
    for _ in range(draw(SPAN_COUNTS)):
        start = draw(st.integers(0, n - 1))
        end = draw(st.integers(start + 1, n))
        labels = draw(LABEL_SETS)
        out.append(make_span(start, end, labels))
    return out


@st.composite
def flat_spans(draw, n: int) -> list[Span]:
    """Non-overlapping single-label spans, as a CoNLL column yields them."""
    tags = draw(tag_columns(n))
    return decode_tags(tags)[0]


@st.composite
def documents(draw, kind) -> list[tuple[list[Span], list[Span]]]:
    docs = []
    for _ in range(draw(DOCUMENT_COUNTS)):
        n = draw(TOKEN_COUNTS)
        docs.append((draw(spans_over(kind, n)), draw(spans_over(kind, n))))
    return docs
