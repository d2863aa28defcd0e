"""``harem import``'s ``TextMap`` (a text cut at each blank) against the word-by-word map
it replaced, written here as the reference, on many generated inputs."""

from __future__ import annotations

import bisect
from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.tools.predictions.chars import TextMap

# ---------------------------------------------------------------------------
# TextMap


def reference_map(text: str) -> tuple[str, list[int], list[int]]:
    """The non-blank characters, each one's text offset, and the count before each offset."""
    positions = [i for i, char in enumerate(text) if not char.isspace()]
    dense = "".join(text[i] for i in positions)
    before = [bisect.bisect_left(positions, offset) for offset in range(len(text) + 3)]
    return dense, positions, before


BLANKY = st.text(alphabet="ab&; \n\t\r\xa0\x0b\x0c\x1c\x85\u2003\u3000", max_size=40)


@settings(derandomize=True, max_examples=800, deadline=None)
@given(BLANKY)
def test_text_map_matches_the_characters_it_maps(text):
    dense, positions, before = reference_map(text)
    mapped = TextMap(text)
    assert mapped.dense == dense
    assert [mapped.to_text(q) for q in range(len(dense))] == positions
    assert [mapped.to_dense(offset) for offset in range(len(text) + 3)] == before
    assert mapped.to_dense(-1) == 0
    for first in range(len(dense)):
        for last in range(first, len(dense)):
            assert mapped.text_span(first, last) == (positions[first], positions[last] + 1)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(BLANKY, st.lists(st.integers(1, 4), max_size=10))
def test_chunk_spans_are_text_spans(text, sizes):
    mapped = TextMap(text)
    starts = [q for q in accumulate(sizes, initial=0) if q <= len(mapped.dense)]
    chunks = [(lo, hi, frozenset()) for lo in range(len(starts) - 1) for hi in (lo + 1, lo + 2)]
    chunks = [c for c in chunks if c[1] < len(starts)]
    expected = [mapped.text_span(starts[lo], starts[hi] - 1) for lo, hi, _ in chunks]
    assert mapped.chunk_spans(starts, chunks) == expected
