"""Golden case files (``tests/cases/<stage>/*.txt``), black-style.

One case per file, every line ``\\n``-terminated::

    # where the case comes from (any number of comment lines)
    # params: -abs                      the command's arguments (shell words)
    # input: first_harem.avalida        optional ``# input:`` / ``# output:`` lines
    # output: first_harem.avalida.pt    right after the params line
    <input lines>                       (may be empty, e.g. when ``# input:`` names a file)
    # expected                          or ``# expected: no output``
    <expected lines>

Input lines may themselves start with ``#`` (a Véus header such as
``#CATEGORIA1=[...]``): only the ``# input:`` / ``# output:`` lines right
after ``# params:`` and the ``# expected`` line are markers.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

PARAMS = "# params:"
EXPECTED = "# expected"
NO_OUTPUT = "# expected: no output"
FILE_LINE = re.compile(r"# (input|output):\s*(.*?)\s*")


@dataclass(frozen=True)
class Case:
    """One parsed case file."""

    path: Path
    comments: list[str]
    params: list[str]
    files: dict[str, str] = field(default_factory=dict)  # "input"/"output" → file name
    input: list[str] = field(default_factory=list)
    expected: list[str] | None = None  # None: the command writes no output at all

    @property
    def name(self) -> str:
        return self.path.stem


class CaseFileError(ValueError):
    """A case file that does not follow the layout above."""


def parse_case(text: str, path: Path) -> Case:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the final line end
    starts = [i for i, line in enumerate(lines) if line.startswith(PARAMS)]
    marks = [i for i, line in enumerate(lines) if line in (EXPECTED, NO_OUTPUT)]
    if len(starts) != 1 or len(marks) != 1 or marks[0] < starts[0]:
        raise CaseFileError(f"{path}: expected one '{PARAMS}' line before one '{EXPECTED}' line")
    start, mark = starts[0], marks[0]
    comments = lines[:start]
    if not all(line.startswith("#") for line in comments):
        raise CaseFileError(f"{path}: expected only '#' comment lines before '{PARAMS}'")
    files: dict[str, str] = {}
    body = start + 1
    while body < mark and (match := FILE_LINE.fullmatch(lines[body])):
        files[match.group(1)] = match.group(2)
        body += 1
    return Case(
        path=path,
        comments=comments,
        params=shlex.split(lines[start].removeprefix(PARAMS)),
        files=files,
        input=lines[body:mark],
        expected=None if lines[mark] == NO_OUTPUT else lines[mark + 1 :],
    )


def read_case(path: Path) -> Case:
    return parse_case(path.read_text(encoding="utf-8"), path)


def case_files(folder: Path) -> list[Path]:
    """The folder's case files, in name order (``README.md`` and data files left out)."""
    return sorted(folder.glob("*.txt"))


def raw_lines(text: str) -> list[tuple[int, str, str]]:
    """``(number, text, line end)`` of LF text, as ``open_raw_lines`` reads a file."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [(number, line, "\n") for number, line in enumerate(lines, start=1)]
