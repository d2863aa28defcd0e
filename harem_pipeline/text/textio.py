"""Reading HAREM text files: encoding detection shared by every format.

HAREM files are ISO-8859-1 (all the originals) or UTF-8.  The rule: an XML
declaration's ``encoding`` wins when present; otherwise UTF-8 if the bytes
decode as UTF-8; otherwise ISO-8859-1 (which decodes any byte string, so it
is only chosen when UTF-8 fails).  The chosen encoding travels with the text
so outputs can be written in the input's encoding.

One exception, for a stale declaration: a file that declares a single-byte
Latin encoding (ISO-8859-1, ISO-8859-15, windows-1252) but whose bytes are
valid UTF-8 *with at least one multi-byte sequence* was re-saved as UTF-8
and kept its old declaration (an editor or ``iconv`` does that).  Read as
declared, every accented letter becomes two characters, its words no
longer match the collection's and the scores drop with nothing said.  Such
a file is read as UTF-8 and a ``StaleDeclarationWarning`` names it.  A
genuine Latin-1 text is practically never valid UTF-8 with multi-byte
sequences (an accented letter would have to be followed by a byte of
0x80-0xBF, a C1 control or a symbol such as ``§``, at every accented letter
of the file), and a pure ASCII file is the same text in both, so a correctly
declared file is practically never misread.
"""

from __future__ import annotations

import codecs
import functools
import gzip
import io
import json
import os
import re
import stat
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from harem_pipeline.errors import InputError, StaleDeclarationWarning
from harem_pipeline.text import PathLike

R = TypeVar("R")

_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")

# Declarations a UTF-8 re-save leaves stale (codecs names, after ``codecs.lookup``).
_SINGLE_BYTE_LATIN = frozenset({"iso8859-1", "iso8859-15", "cp1252"})


@dataclass(frozen=True, slots=True)
class DecodedText:
    """A file's text with the encoding it was read in."""

    text: str
    encoding: str


def open_binary(path: PathLike) -> gzip.GzipFile | io.BufferedReader:
    """Open a file for reading bytes, transparently un-gzipping ``*.gz`` files.

    Only a regular file is read: a device such as ``/dev/zero`` never ends
    and would be read until memory runs out, and a pipe (a FIFO,
    ``/dev/stdin``, ``<(zcat …)``) can be read only once, while an input is
    read twice (its encoding first, then its lines: the second reading of a
    pipe would find it empty).  A corrupt or truncated gzip member is an
    ``InputError`` naming the file, wherever it is met while reading.
    """
    p = Path(path)
    try:
        check_readable_kind(path)
        return _CheckedGzipFile(p, "rb") if p.suffix == ".gz" else open(p, "rb")
    except FileNotFoundError:
        raise InputError(str(path), "an existing file", "no such file") from None
    except IsADirectoryError:
        raise InputError(str(path), "a file", "a directory") from None
    except OSError as exc:
        raise InputError(str(path), "a readable file", f"{type(exc).__name__}: {exc}") from None


_FILE_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISFIFO, "a pipe"),
    (stat.S_ISDIR, "a directory"),
)


def check_input_file(path: PathLike) -> None:
    """``InputError`` unless ``path`` names a regular file, as :func:`open_binary` says it."""
    open_binary(path).close()


def check_readable_kind(path: PathLike) -> None:
    """``InputError`` unless ``path`` (through links) is a regular file."""
    mode = os.stat(path).st_mode  # FileNotFoundError: the caller's line
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
    raise InputError(str(path), "a regular file (an input is read more than once)", kind)


def _gzip_errors(method: Callable[..., R]) -> Callable[..., R]:
    """``method`` of a gzip file, its corrupt or cut data an ``InputError`` naming the file."""

    @functools.wraps(method)
    def checked(self: _CheckedGzipFile, *args: Any) -> R:
        try:
            return method(self, *args)
        except (zlib.error, gzip.BadGzipFile) as exc:
            raise InputError(self.path, "a whole gzip file", f"corrupt data ({exc})") from None
        except EOFError:
            raise InputError(self.path, "a whole gzip file", "one cut short") from None

    return checked


class _CheckedGzipFile(gzip.GzipFile):
    """A gzip file whose every read turns a decompression error into an ``InputError``."""

    def __init__(self, path: Path, mode: str) -> None:
        super().__init__(path, mode)
        self.path = str(path)

    read = _gzip_errors(gzip.GzipFile.read)
    read1 = _gzip_errors(gzip.GzipFile.read1)
    readinto = _gzip_errors(gzip.GzipFile.readinto)
    readline = _gzip_errors(gzip.GzipFile.readline)
    peek = _gzip_errors(gzip.GzipFile.peek)


def _unreadable(path: PathLike, exc: BaseException) -> InputError:
    return InputError(str(path), "a readable file", f"{type(exc).__name__}: {exc}")


def read_bytes(path: PathLike) -> bytes:
    """Read a file's bytes, transparently un-gzipping ``*.gz`` files."""
    with open_binary(path) as handle:
        try:
            return handle.read()
        except (OSError, EOFError) as exc:
            raise _unreadable(path, exc) from None


def read_head(path: PathLike, size: int) -> bytes:
    """The first ``size`` bytes of a file (of its content, for ``.gz``), reading no more."""
    with open_binary(path) as handle:
        try:
            return handle.read(size)
        except (OSError, EOFError) as exc:
            raise _unreadable(path, exc) from None


def check_not_empty(path: PathLike, expected: str) -> None:
    """``InputError`` when ``path`` holds no byte (of content, for ``.gz``).

    An intermediate file of no byte (a stage killed before the atomic
    writes, a ``: > file``) would be read as a file of no document and
    give a report of zeros with exit status 0.
    """
    if not read_head(path, 1):
        raise InputError(str(path), expected, "an empty file")


def detect_file_encoding(path: PathLike) -> str:
    """The encoding of a file by the rule above, reading it in chunks (memory stays flat).

    A BOM, or an XML declaration naming any encoding but a single-byte
    Latin one, decides at once; otherwise the whole file is checked as
    UTF-8 (a Latin-1 file usually fails at its first accented letter).
    """
    with open_binary(path) as handle:
        try:
            head = handle.read(200)
            declared = _declared(head, str(path))
            if head.startswith(codecs.BOM_UTF8) or (
                declared is not None and declared not in _SINGLE_BYTE_LATIN
            ):
                return detect_encoding(head, str(path))
            decoder = codecs.getincrementaldecoder("utf-8")()
            multibyte = False
            chunk = head
            while chunk:
                decoder.decode(chunk)
                multibyte = multibyte or not chunk.isascii()
                chunk = handle.read(1 << 16)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return declared or "iso8859-1"
        except (OSError, EOFError) as exc:
            raise _unreadable(path, exc) from None
    return _utf8_over(declared, multibyte, str(path))


def _declared(head: bytes, path: str | None) -> str | None:
    """The codecs name of the encoding an XML declaration at the start names, if any."""
    match = _XML_DECL.match(head[:200])
    if not match:
        return None
    name = match.group(1).decode("ascii")
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise InputError(path, "a known encoding in the XML declaration", name) from None


def _utf8_over(declared: str | None, multibyte: bool, path: str | None) -> str:
    """The encoding of bytes that are valid UTF-8, given what the file declares.

    With a single-byte Latin declaration and some multi-byte sequence the
    declaration is stale (module docstring): UTF-8, with the warning; with
    no multi-byte sequence the bytes read the same either way and the
    declaration stands.
    """
    if declared is None:
        return "utf-8"
    if multibyte and declared in _SINGLE_BYTE_LATIN:
        # One call site: Python shows a message once per place, so once per file.
        warnings.warn(StaleDeclarationWarning.about(path, declared), stacklevel=1)
        return "utf-8"
    return declared


def detect_encoding(data: bytes, path: str | None = None) -> str:
    """Return the encoding of ``data`` by the rule in the module docstring."""
    declared = _declared(data, path)
    if declared is not None and declared not in _SINGLE_BYTE_LATIN:
        return declared
    if declared is None and data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return declared or "iso8859-1"
    return _utf8_over(declared, not data.isascii(), path)


def decode(data: bytes, path: str | None = None) -> DecodedText:
    """Decode ``data`` with the detected encoding; a wrong declaration is an input error."""
    encoding = detect_encoding(data, path)
    try:
        return DecodedText(data.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise undecodable(path, encoding, data[exc.start], line) from None


def decode_line(raw: bytes, encoding: str, path: str | None, line: int) -> str:
    """One line's text; an undecodable byte is an error naming the file, line and byte."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise undecodable(path, encoding, raw[exc.start], line) from None


def undecodable(path: str | None, encoding: str, byte: int, line: int) -> InputError:
    """The error for a ``byte`` that ``encoding`` cannot decode, on ``line`` of ``path``."""
    return InputError(path, f"text in {encoding}", f"undecodable byte {byte:#04x}", line=line)


def read_text(path: PathLike) -> DecodedText:
    """Read and decode a whole file (``.gz`` allowed)."""
    return decode(read_bytes(path), str(path))


def derived_path(path: PathLike, suffix: str, replaces: str | None = None) -> Path:
    """The default name of a stage's output: ``IN`` + ``suffix``, beside the input.

    A ``.gz`` ending is dropped first (a gzipped input gives a plain output),
    then ``replaces`` when the name ends with it (``x.vizir`` → ``x.altmor``).
    """
    name = Path(path).name.removesuffix(".gz")
    if replaces and name.endswith(replaces):
        name = name.removesuffix(replaces)
    return Path(path).with_name(name + suffix)


def too_deep(path: PathLike | None, line: int | None = None) -> InputError:
    """The error for JSON nested past what Python's decoder can follow (``RecursionError``).

    Every JSON reader catches it: ``[`` repeated 10^5 times is a few bytes
    of input, not a traceback.
    """
    return InputError(
        None if path is None else str(path),
        "JSON nested a few hundred levels deep at most",
        "deeper nesting",
        line=line,
    )


def loads_json(text: str, path: PathLike | None, line: int | None = None) -> object:
    """``json.loads(text)``; nesting too deep is :func:`too_deep` (syntax errors stay
    ``json.JSONDecodeError`` for the caller to word)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise too_deep(path, line) from None


def read_json_object(path: PathLike, what: str = "a JSON report") -> dict:
    """Read a JSON object (a report, a summary); anything else is the user's bad input."""
    raw = read_bytes(path)
    try:
        data = loads_json(raw.decode("utf-8"), path)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(str(path), what, f"invalid JSON ({exc})", line=line) from None
    if not isinstance(data, dict):
        raise InputError(str(path), f"{what} (a JSON object)", type(data).__name__)
    return data
