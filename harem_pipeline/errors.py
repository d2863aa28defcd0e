"""Errors the library raises for a user's mistake.

Every bad input becomes one ``InputError`` whose ``str()`` is a single line
naming the file, the line or DOCID, what was expected and what was found.
The command line and the Luigi layer turn it into a non-zero exit status
without a traceback; the library itself never exits or logs.
"""

from __future__ import annotations

import re

# C0 and C1 controls (ESC among them), DEL, the line and paragraph separators
# and the bidirectional overrides: shown raw, an input's text could clear the
# terminal, colour or forge lines of a log, or reorder what is read.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """``text`` with every control character written as an escape (ESC as ``\\x1b``).

    Every message that may quote an input goes through it before it reaches
    a terminal or a log; a message with none is unchanged, and escaping
    twice changes nothing more.
    """
    return _CONTROLS.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class HaremError(Exception):
    """Base class of every error the library raises on purpose."""


class InputError(HaremError):
    """A problem in a user's input file, located as precisely as possible."""

    def __init__(
        self,
        path: str | None,
        expected: str,
        found: str,
        *,
        line: int | None = None,
        docid: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.docid = docid
        self.expected = expected
        self.found = found
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = str(self.path) if self.path else "<input>"
        if self.line is not None:
            where += f", line {self.line}"
        if self.docid is not None:
            where += f", document {self.docid}"
        found = " ".join(str(self.found).split())
        if len(found) > 120:
            found = found[:117] + "..."
        return escape_controls(f"{where}: expected {self.expected}, found {found}")


class OutputError(HaremError):
    """An output that cannot be written: a full disk, a closed standard output.

    Not a traceback: the data already there is safe (outputs are renamed
    into place whole, see :mod:`harem_pipeline.text.atomic`), and the line
    names the file and what went wrong.
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(escape_controls(f"{path}: {problem}"))


class ConfigError(HaremError):
    """A problem in ``pipeline.yaml``: names the key path and gives a hint."""

    def __init__(self, path: str, key: str, problem: str, hint: str = "") -> None:
        self.path = path
        self.key = key
        self.problem = problem
        self.hint = hint
        text = f"{path}: {key}: {problem}"
        if hint:
            text += f" ({hint})"
        super().__init__(escape_controls(text))
