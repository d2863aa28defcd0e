"""Encoding detection and derived file names, shared by every format."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError, StaleDeclarationWarning
from harem_pipeline.text.textio import (
    decode,
    derived_path,
    detect_encoding,
    detect_file_encoding,
    read_bytes,
    read_text,
)
from tests.helpers.paths import DATA


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


# ---------------------------------------------------------------------------
# A stale declaration: UTF-8 bytes under an ISO-8859-1 declaration

_LATIN1_DECL = b'<?xml version="1.0" encoding="ISO-8859-1"?>\n'


@pytest.mark.parametrize("declared", ["ISO-8859-1", "latin1", "windows-1252", "ISO-8859-15"])
def test_utf8_bytes_under_a_latin_declaration_are_read_as_utf8(declared: str) -> None:
    data = f'<?xml version="1.0" encoding="{declared}"?>\n<a>Rússia</a>'.encode()
    with pytest.warns(StaleDeclarationWarning, match=r"^f\.xml: warning: the XML declaration"):
        assert detect_encoding(data, "f.xml") == "utf-8"
    with pytest.warns(StaleDeclarationWarning):
        assert decode(data, "f.xml").text.endswith("<a>Rússia</a>")


@pytest.mark.parametrize(
    ("body", "encoding"),
    [
        ("<a>Rússia</a>".encode("iso8859-1"), "iso8859-1"),  # genuine Latin-1: as declared
        (b"<a>Russia</a>", "iso8859-1"),  # ASCII reads the same: the declaration stands
    ],
)
def test_a_latin_declaration_that_fits_stands_silently(
    body: bytes, encoding: str, tmp_path: Path
) -> None:
    data = _LATIN1_DECL + body
    path = tmp_path / "f.xml.gz"
    path.write_bytes(gzip.compress(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert detect_encoding(data, "f.xml") == encoding
        assert detect_file_encoding(path) == encoding


def test_the_streaming_detection_reads_past_the_head(tmp_path: Path) -> None:
    # The first multi-byte sequence far past the first chunk still decides.
    data = _LATIN1_DECL + b"<a>" + b"x" * 200_000 + "ç</a>".encode()
    path = tmp_path / "f.xml"
    path.write_bytes(data)
    with pytest.warns(StaleDeclarationWarning, match=str(path)):
        assert detect_file_encoding(path) == "utf-8"


SECOND_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
SECOND_RUN = DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"


def _chain(folder: Path, cd: Path, run: Path) -> tuple[str, ...]:
    """Align, AvalIDa, Véus (total), AltinaID and Ida2ID through the command line.

    The outputs' texts, without the lines that name the inputs (the ``#``
    headers, the signature's digests).
    """
    alinhado = folder / "r.alinhado"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(alinhado)]) == 0
    assert main(["avalida", str(alinhado)]) == 0
    avalida = folder / "r.alinhado.avalida"
    assert main(["veus", str(avalida), "--style", "harem"]) == 0
    assert main(["altida", f"{avalida}.total"]) == 0
    assert main(["ida2id", f"{avalida}.total.altida", "--bootstrap", "0"]) == 0
    outputs = [alinhado, avalida, Path(f"{avalida}.total.altida.ida2id")]
    return tuple(
        "".join(
            line
            for line in read_text(path).text.splitlines(keepends=True)
            if not line.startswith(("#", "Assinatura"))
        )
        for path in outputs
    )


def _stale(source: Path, target: Path) -> Path:
    """``source`` (ISO-8859-1, declared so) re-encoded as UTF-8 with its declaration kept."""
    data = read_bytes(source)
    assert data.startswith(_LATIN1_DECL.rstrip())
    target.write_bytes(data.decode("iso8859-1").encode("utf-8"))
    return target


@pytest.fixture(scope="module")
def original_chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    return _chain(tmp_path_factory.mktemp("original"), SECOND_CD, SECOND_RUN)


@pytest.mark.parametrize("stale", [("run",), ("run", "cd")])
def test_a_stale_declaration_gives_the_figures_of_the_right_encoding(
    stale: tuple[str, ...],
    original_chain: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = _stale(SECOND_RUN, tmp_path / "run.xml") if "run" in stale else SECOND_RUN
    cd = _stale(SECOND_CD, tmp_path / "cd.xml") if "cd" in stale else SECOND_CD
    capsys.readouterr()
    outputs = _chain(tmp_path, cd, run)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == len(stale), err  # one line a file (CD first), read by several stages
    for name, line in zip(sorted(stale), lines, strict=True):
        assert line == (
            f"{tmp_path / (name + '.xml')}: warning: the XML declaration says iso8859-1 but "
            "the bytes are UTF-8 (multi-byte sequences, all valid): read as UTF-8"
        )
    assert outputs == original_chain
    # Not a test that cannot fail: read as declared, the run's words are others.
    assert read_bytes(run).decode("iso8859-1") != read_text(SECOND_RUN).text
