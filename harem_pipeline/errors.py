"""Errors the library raises for a user's mistake.

Every bad input becomes one ``InputError`` whose ``str()`` is a single line
naming the file, the line or DOCID, what was expected and what was found.
The command line and the Luigi layer turn it into a non-zero exit status
without a traceback; the library itself never exits or logs.  What it
handles but a user should know is a ``HaremWarning`` (``warnings.warn``),
shown by both as its one line.
"""

from __future__ import annotations

import re
import sys
import warnings
from typing import TextIO

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


class HaremWarning(UserWarning):
    """Something in a user's input that the library handled but the user should know.

    Issued with ``warnings.warn``; its text is one line naming the file.
    The command line and the Luigi layer show it as that one line
    (:func:`show_warning_line`), not Python's two-line default.
    """


class StaleDeclarationWarning(HaremWarning):
    """A file declares a single-byte encoding but its bytes are UTF-8 (read as UTF-8)."""

    @classmethod
    def about(cls, path: str | None, declared: str) -> StaleDeclarationWarning:
        where = str(path) if path else "<input>"
        return cls(
            f"{where}: warning: the XML declaration says {declared} but the bytes are "
            "UTF-8 (multi-byte sequences, all valid): read as UTF-8"
        )


def install_warning_line() -> None:
    """Show every ``HaremWarning`` as its one line on standard error; others as before.

    Python's default shows a warning on two lines with the library's source
    line; a user needs the message only.  Calling it again changes nothing.
    """
    previous = warnings.showwarning
    if getattr(previous, "harem_one_line", False):
        return

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if not issubclass(category, HaremWarning):
            previous(message, category, filename, lineno, file, line)
            return
        try:
            (file or sys.stderr).write(f"{escape_controls(str(message))}\n")
        except (OSError, ValueError, AttributeError):  # a closed or absent stderr
            pass

    vars(show)["harem_one_line"] = True  # a function attribute, which mypy does not model
    warnings.showwarning = show
