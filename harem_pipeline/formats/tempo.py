"""The ``.tempo`` file of the TEMPO track: an Emir file with AvalTEMPO's second block.

AvalTEMPO (``docs/spec/tempo.md``, "The rewrite") copies an Emir file
and, on each TEMPO record, updates the first ``MaxCSC_CD(a) MaxCSC_S(b)
CSC(c)`` of the line and appends one block (one line, cut here)::

    ::[{<labels>MaxCSC_CD=MaxCSC_CD_class(a)+MaxCSC_CD_tempo(t)
    MaxCSC_S=MaxCSC_S_class(b)+MaxCSC_S_tempo(t) CSC=CSC_class(c)+CSC_tempo(t)}]

This module reads and writes that block (:class:`TempoBlock`), and holds
the two number rules of the 2008 gawk run in a ``pt_PT`` ISO-8859-1 locale
with the decimal point honoured (``docs/spec/tempo.md``, "Decimal point
and locale"): :func:`awk_strtonum` (how ``strtonum`` reads a value whose
first ``.`` was turned into ``,``) and :func:`awk_number` (how a number
becomes text: integers bare, else ``%.6g``), plus :func:`awk_equal`, awk's
``==`` on two texts read from the input (numeric when both look like
numbers).  The Emir line itself is read by :mod:`harem_pipeline.formats.semantic`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Line, Record, parse_line
from harem_pipeline.text import PathLike
from harem_pipeline.text.textio import open_binary

BLOCK_MARK = "::[{"
"""What starts AvalTEMPO's block, right after the Emir evaluation list."""


@dataclass(frozen=True, slots=True)
class TempoBlock:
    """AvalTEMPO's appended block: the attribute labels, then the three classic values as
    they were written in the input (a, b, c) and the TEMPO points added to each, as text."""

    labels: str
    """Every ``Label(Correcto…:[v] Em_Falta:[w]) `` in order, trailing space included."""
    classic: tuple[str, str, str]
    tempo: tuple[str, str, str]


_BLOCK_RE = re.compile(
    r"::\[\{(?P<labels>(?:(?:TempoRef|Sentido|ValDelta|ValNorm)"
    r"\((?:Correcto|CorrectoP):\[[^\]]*\] Em_Falta:\[[^\]]*\]\) )*)"
    r"MaxCSC_CD=MaxCSC_CD_class\((?P<a>[^()]*)\)\+MaxCSC_CD_tempo\((?P<ta>[^()]*)\) "
    r"MaxCSC_S=MaxCSC_S_class\((?P<b>[^()]*)\)\+MaxCSC_S_tempo\((?P<tb>[^()]*)\) "
    r"CSC=CSC_class\((?P<c>[^()]*)\)\+CSC_tempo\((?P<tc>[^()]*)\)\}\]\r?\Z"
)
BLOCK_EXPECTED = (
    "AvalTEMPO's block ::[{<labels>MaxCSC_CD=MaxCSC_CD_class(a)+MaxCSC_CD_tempo(t) "
    "MaxCSC_S=MaxCSC_S_class(b)+MaxCSC_S_tempo(t) CSC=CSC_class(c)+CSC_tempo(t)}]"
)


def format_tempo_block(block: TempoBlock) -> str:
    """The block text AvalTEMPO appends (``update_csc``'s last ``print``)."""
    (a, b, c), (ta, tb, tc) = block.classic, block.tempo
    return (
        f"{BLOCK_MARK}{block.labels}MaxCSC_CD=MaxCSC_CD_class({a})+MaxCSC_CD_tempo({ta}) "
        f"MaxCSC_S=MaxCSC_S_class({b})+MaxCSC_S_tempo({tb}) CSC=CSC_class({c})+CSC_tempo({tc})}}]"
    )


def parse_tempo_block(text: str, path: str | None = None, line: int | None = None) -> TempoBlock:
    """Read a block written by :func:`format_tempo_block` (a record's suffix)."""
    match = _BLOCK_RE.match(text)
    if match is None:
        raise InputError(path, BLOCK_EXPECTED, text, line=line)
    g = match.group
    return TempoBlock(g("labels"), (g("a"), g("b"), g("c")), (g("ta"), g("tb"), g("tc")))


TEMPO_RECORD = re.compile(r'CATEG="[^"]*TEMPO[^"]*".* --->')
"""AvalTEMPO's last rule: a record whose golden category holds TEMPO is always rewritten,
so in a ``.tempo`` file it always has a block."""


def is_tempo_file(path: PathLike) -> bool:
    """A ``.tempo`` file: its name says so (``.gz`` aside), or it holds an AvalTEMPO block."""
    if Path(path).name.removesuffix(".gz").endswith(".tempo"):
        return True
    mark = b"MaxCSC_CD=MaxCSC_CD_class("
    tail = b""
    with open_binary(path) as handle:  # a chunk at a time: memory stays flat
        while chunk := handle.read(1 << 20):
            if mark in tail + chunk:
                return True
            tail = chunk[-len(mark) :]
    return False


def parse_tempo_line(
    text: str, path: str | None = None, line: int | None = None, eol: str = "\n"
) -> Line:
    """A ``.tempo`` line as the Emir line it rewrote: the general record reader, the block
    (the record's suffix) checked and dropped, as ``GlobalSemanticEvaluator`` reads only
    the first block (whose values AvalTEMPO updated).  A TEMPO record without its block
    is an error: that file is not AvalTEMPO's output."""
    item = parse_line(text, path, line, eol)
    if not isinstance(item, Record):
        return item
    if item.suffix:
        parse_tempo_block(item.suffix, path, line)
        return Record(item.gold, item.system, item.evaluation, item.marker, "", item.eol, item.line)
    if item.evaluation is not None and TEMPO_RECORD.search(text):
        raise InputError(path, f"a TEMPO record ending in {BLOCK_EXPECTED}", text, line=line)
    return item


# ---------------------------------------------------------------------------
# gawk's numbers in the pt_PT locale

_SPACE = " \t\n\r\f\v"
_PREFIX_RE = re.compile(r"[+-]?(?:[0-9]+(?:,[0-9]*)?|,[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX_RE = re.compile(r"0[xX]([0-9a-fA-F]+)")
_STRNUM_RE = re.compile(rf"[{_SPACE}]*{_PREFIX_RE.pattern}[{_SPACE}]*\Z")


def awk_strtonum(text: str) -> float:
    """``strtonum(text)`` as gawk 5 gives it with ``--use-lc-numeric`` in ``pt_PT``.

    The longest numeric prefix, ``,`` the decimal point (``2,4875`` is
    2.4875, ``2.4875`` is 2), 0 for none (``--``, ``""``); ``0x…`` is
    hexadecimal.  Octal (``010``) only applies to texts that are not read
    from the input; AvalTEMPO's are (fields and ``match`` groups, which
    gawk reads as numbers first), or hold the ``,`` (decimal then).
    """
    hexadecimal = _HEX_RE.match(text)
    if hexadecimal is not None:
        return float(int(hexadecimal.group(1), 16))
    stripped = text.lstrip(_SPACE)
    found = _PREFIX_RE.match(stripped)
    if found is None:
        return 0.0
    return float(found.group().replace(",", "."))


def awk_equal(left: str, right: str) -> bool:
    """awk's ``==`` on two texts read from the input: numeric when both look like numbers
    (``01`` equals ``1``, ``1,0`` equals ``1``), else the texts compared."""
    if _STRNUM_RE.match(left) and _STRNUM_RE.match(right):
        return awk_strtonum(left) == awk_strtonum(right)
    return left == right


def awk_number(value: float) -> str:
    """A number as gawk turns it into text: an integer bare, else ``CONVFMT`` ``%.6g``
    (the locale's ``,`` turned back into ``.`` by AvalTEMPO: C's ``%.6g``)."""
    if math.isfinite(value) and value == int(value) and abs(value) < 2**63:
        return str(int(value))
    return f"{value:.6g}"
