"""Encoding detection and derived file names, shared by every format."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from harem_pipeline.errors import InputError
from harem_pipeline.text.textio import (
    decode,
    derived_path,
    detect_encoding,
    detect_file_encoding,
    read_text,
)


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b'<?xml version="1.0" encoding="ISO-8859-1"?><a>\xe7</a>', "iso8859-1"),
        (b"<?xml version='1.0' encoding='utf-8'?><a/>", "utf-8"),
        ("Rússia".encode(), "utf-8"),
        ("Rússia".encode("iso8859-1"), "iso8859-1"),
        (b"\xef\xbb\xbfabc", "utf-8-sig"),
    ],
)
def test_detect_encoding(data: bytes, encoding: str) -> None:
    assert detect_encoding(data) == encoding


def test_declared_encoding_that_does_not_fit_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"f.xml, line 2: expected text in utf-8"):
        decode(b'<?xml version="1.0" encoding="UTF-8"?>\n<a>\xe7</a>', "f.xml")
    with pytest.raises(InputError, match="a known encoding"):
        decode(b'<?xml version="1.0" encoding="klingon"?><a/>', "f.xml")


def test_read_text_opens_gzip(tmp_path: Path) -> None:
    path = tmp_path / "x.txt.gz"
    path.write_bytes(gzip.compress("Rússia\n".encode("iso8859-1")))
    decoded = read_text(path)
    assert (decoded.text, decoded.encoding) == ("Rússia\n", "iso8859-1")


@pytest.mark.parametrize(
    ("path", "suffix", "replaces", "expected"),
    [
        ("d/run.alinhado", ".avalida", None, "d/run.alinhado.avalida"),
        ("d/run.alinhado.gz", ".avalida", None, "d/run.alinhado.avalida"),
        ("d/x.total.vizir", ".altmor", ".vizir", "d/x.total.altmor"),
        ("d/x.total.vizir.gz", ".altmor", ".vizir", "d/x.total.altmor"),
        ("d/x.total", ".altmor", ".vizir", "d/x.total.altmor"),
    ],
)
def test_derived_path(path: str, suffix: str, replaces: str | None, expected: str) -> None:
    assert derived_path(path, suffix, replaces) == Path(expected)


def test_file_encoding_reads_past_a_declaration_without_encoding(tmp_path: Path) -> None:
    path = tmp_path / "x.xml"
    path.write_bytes(b'<?xml version="1.0"?>\n' + b"a" * 300 + "Rússia".encode("iso8859-1"))
    assert detect_file_encoding(path) == "iso8859-1"
    path.write_bytes(b'<?xml version="1.0" encoding="UTF-8"?>\n<a/>')
    assert detect_file_encoding(path) == "utf-8"
