"""HAREM report files: ``Label: value`` lines, titles and blank lines.

The reports of the HAREM tools (``.globalid``, ``.ida``, Ida2ID's and
Ida2Mor's text reports, and the aligner's warnings on standard error) share
one simple shape, unlike the record files of ``formats.alinhado``:

* ``Field``: ``Label: value`` (split at the first ``": "``), e.g.
  ``Precisão: 0.6189175746976499``;
* ``Text``: any other line, kept as written — a title (``Avaliação Global -
  Identificação``), the tab-indented veil of a scenario description, or a
  blank line.

Every line keeps its line end, so reading and writing a report gives back
the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.text.textio import read_text

SEPARATOR = ": "


@dataclass(frozen=True, slots=True)
class Field:
    """A ``Label: value`` line."""

    label: str
    value: str
    eol: str = field(default="\n", compare=False)


@dataclass(frozen=True, slots=True)
class Text:
    """A title, a description line or a blank line, as written."""

    text: str
    eol: str = field(default="\n", compare=False)


ReportLine = Field | Text


def parse_report_line(text: str, eol: str = "\n") -> ReportLine:
    """One line (without its line end) of a report."""
    label, separator, value = text.partition(SEPARATOR)
    if separator and label and not label.startswith(("\t", " ")):
        return Field(label, value, eol)
    return Text(text, eol)


def format_report_line(item: ReportLine) -> str:
    """The line's text without its line end."""
    if isinstance(item, Field):
        return f"{item.label}{SEPARATOR}{item.value}"
    return item.text


def parse_report(text: str) -> list[ReportLine]:
    """Every line of a report's text, line ends kept."""
    items = []
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        items.append(parse_report_line(body, raw[len(body) :]))
    return items


def format_report(items: Iterable[ReportLine]) -> str:
    """The report's text: each line with its own line end."""
    return "".join(format_report_line(item) + item.eol for item in items)


def format_fields(fields: Iterable[tuple[str, str]]) -> list[str]:
    """``Label: value`` lines (no line ends) for ``(label, value)`` pairs."""
    return [format_report_line(Field(label, value)) for label, value in fields]


def read_report(path: PathLike) -> tuple[str, list[ReportLine]]:
    """A report file's encoding and lines (``.gz`` allowed)."""
    decoded = read_text(path)
    return decoded.encoding, parse_report(decoded.text)


def write_report(path: PathLike, items: Iterable[ReportLine], encoding: str) -> None:
    """Write a report atomically in ``encoding``."""
    write_text_atomic(path, format_report(items), encoding)


ERROR_AND_FIGURE_LABELS = (
    "Espúrios",
    "Em Falta",
    "Precisão",
    "Abrangência",
    "Medida F",
    "Sobre-geração",
    "Sub-geração",
)
"""The labels the Ida2ID report shares with the Ida report's identification block, in
their order (here, so that the Ida report does not load the span measures with Ida2ID's)."""
