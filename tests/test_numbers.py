"""Java ``Double.toString`` formatting, checked on values printed in the reference files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.text.atoms import atoms
from harem_pipeline.text.numbers import java_double


@pytest.mark.parametrize(
    ("value", "text"),
    [
        # Values and strings as printed in data/reference/exemplo0/*.globalid.
        (4.3, "4.3"),
        (18.699999999999996, "18.699999999999996"),
        (0.42058823529411765, "0.42058823529411765"),
        (1.1916666666666667, "1.1916666666666667"),
        (1.0, "1.0"),
        (0.0, "0.0"),
        (12.0, "12.0"),
        # docs/spec/identification.md (AvalIDa): scientific form below 10^-3.
        (1.9619383951343929e-4, "1.9619383951343929E-4"),
        (0.001, "0.001"),
        (1e7, "1.0E7"),
        (12345678.9, "1.23456789E7"),
        (9999999.0, "9999999.0"),
        (-0.5, "-0.5"),
    ],
)
def test_java_double(value: float, text: str) -> None:
    assert java_double(value) == text


@settings(derandomize=True, max_examples=500)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_java_double_round_trips(x: float) -> None:
    assert float(java_double(x)) == x


def test_atoms_spec_examples() -> None:
    # docs/spec/vizir-altinamor-ida2mor.md §2.
    assert atoms("D.Francisco") == ["D", "FRANCISCO"]
    assert atoms("Aves-Campomaiorense") == ["AVES", "CAMPOMAIORENSE"]
    assert atoms("Relações  Públicas") == ["RELAÇÕES", "PÚBLICAS"]
    assert atoms("a_b") == ["A", "B"]
