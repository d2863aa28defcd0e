"""The bounded cache of keyed decisions: one call per key, bounded, errors not kept."""

from __future__ import annotations

import pytest

from harem_pipeline.text.memo import keyed_cache


def test_each_key_is_computed_once_and_the_cache_is_bounded() -> None:
    calls: list[int] = []

    @keyed_cache(maxsize=2)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]
    square(5)  # evicts 3, the least recently used
    assert square(3) == 9
    assert calls == [3, 4, 5, 3]


def test_an_error_is_raised_again_for_the_same_key() -> None:
    calls: list[str] = []

    @keyed_cache()
    def check(text: str) -> str:
        calls.append(text)
        raise ValueError(text)

    for _ in range(2):
        with pytest.raises(ValueError, match="bad"):
            check("bad")
    assert calls == ["bad", "bad"]
