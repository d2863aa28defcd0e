"""Numbers printed exactly as the Java HAREM programs print them.

The reference files were written with Java's ``Double.toString``: the
shortest digits that round-trip (Python's ``repr``), written in plain
notation when 10⁻³ ≤ |x| < 10⁷ and as ``1.9619383951343929E-4`` (mantissa
with at least one decimal, ``E``, exponent) otherwise.
"""

from __future__ import annotations

import math
from decimal import Decimal


def java_double(x: float) -> str:
    """Format ``x`` like Java's ``Double.toString``."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign, digits, exponent = Decimal(repr(x)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    # Value = 0.d1d2d3... × 10^(point); point = position of the decimal point.
    point = len(digits) + int(exponent)
    prefix = "-" if sign else ""
    if 1e-3 <= abs(x) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        if point >= len(text):
            return f"{prefix}{text}{'0' * (point - len(text))}.0"
        return f"{prefix}{text[:point]}.{text[point:]}"
    mantissa = text[0] + "." + (text[1:] or "0")
    return f"{prefix}{mantissa}E{point - 1}"
