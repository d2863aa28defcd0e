"""Helpers of the semantic-chain tests: reading reference files and comparing lines."""

from __future__ import annotations

import difflib
import functools
import gzip
from collections.abc import Iterable
from pathlib import Path

from harem_pipeline.formats.alinhado import Line, format_line, parse_lines

ROOT = Path(__file__).resolve().parent.parent.parent
REFERENCE = ROOT / "data" / "reference"


def reference_text(path: Path) -> str:
    """A reference file's text (gzipped, ISO-8859-1)."""
    with gzip.open(path, "rb") as handle:
        return handle.read().decode("latin-1")


def text_lines(text: str) -> list[str]:
    """The lines of a text without line ends (no empty last line)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def comparable(lines: Iterable[str]) -> list[str]:
    """Lines as compared with the Java's: ``#`` lines dropped, ``]::[`` read as ``]:[``."""
    return [line.replace("]::[", "]:[") for line in lines if not line.startswith("#")]


def rendered(lines: Iterable[Line]) -> list[str]:
    """Our parsed lines written back, without line ends."""
    return [format_line(item) for item in lines]


def parsed(path: Path) -> list[Line]:
    """A reference file's parsed lines (a new list of the same immutable lines each call)."""
    return list(_parsed_once(path))


@functools.lru_cache(maxsize=16)
def _parsed_once(path: Path) -> tuple[Line, ...]:
    """Parsed once per process: several tests run stages on each reference file."""
    return tuple(parse_lines(reference_text(path), str(path)))


def assert_same_lines(expected: list[str], actual: list[str], name: str) -> None:
    """Equal lists of lines, or a failure showing the unified diff."""
    if expected != actual:
        diff = difflib.unified_diff(
            expected, actual, f"{name} (Java)", f"{name} (ours)", lineterm=""
        )
        raise AssertionError("\n".join(list(diff)[:60]))
