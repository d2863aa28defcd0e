"""Blocks of keyed lines (Emir's and Ida's fast path) give the general path's bytes and counts.

:func:`~harem_pipeline.formats.semantic.iter_keyed_blocks` hands Emir and
Ida each decoded chunk after the head whole
(:class:`~harem_pipeline.formats.semantic.KeyedBlock`); they walk it with
one expression (:func:`~harem_pipeline.formats.semantic.keyed_lines`),
look a keyed record line up by its key, copy (Emir) or look at (Ida) the
blank, ``DOC``, ``EOD`` and ``<ALT>`` lines, and read any other line alone
as the line reader does.  Here both run on the blocks and on the general
reader, with every Emir option and Ida view, on generated files and on a
sample of the reference inputs (:data:`~tests.helpers.semantic.SAMPLE`; all
of them meet the Java's files in test_semantic_reference), at the usual
chunk size and in tiny chunks: the texts written, the counts, or the errors
raised, must be the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harem_pipeline.formats.alinhado import format_line, parse_line
from harem_pipeline.formats.semantic import (
    KEY_GROUPS,
    KEYED_LINE,
    OTHER_LINE,
    KeyedBlock,
    iter_keyed_blocks,
    keyed_lines,
    parse_semantic_line,
    read_keyed_record,
    read_plain_emir_record,
    read_plain_record,
)
from harem_pipeline.stages.ida import tally_semantic
from tests.helpers.semantic import (
    ALTS,
    EMIR_STAGES,
    EMIRS,
    REFERENCE,
    by_chunk_size,
    general_emir,
    general_tally,
    general_written,
    outcome,
    repeated_key_files,
    set_chunk_size,
    unzipped,
    veu_files,
    written,
)


def emir_both_ways(path: Path, stage: str) -> None:
    """An Emir variant on the blocks and on the general reader: same text or same error."""
    function = EMIR_STAGES[stage]

    def blocks() -> str:
        _, lines = iter_keyed_blocks(path, read_plain_record)
        return written(function(lines, str(path)), ":")

    assert outcome(blocks) == outcome(lambda: general_written(path, function, ":", parse_line))


def tallies_both_ways(path: Path, all_views: tuple[bool | None, ...] = (None, True)) -> None:
    """Ida's counts on the blocks and on the general reader, as the file says (``None``) and
    with the 2005 views (``True``): the same counts (every sum the same bits) or the same
    error."""
    for views in all_views:

        def blocks(views: bool | None = views) -> object:
            _, lines = iter_keyed_blocks(path, read_plain_emir_record, parse_semantic_line)
            return tally_semantic(lines, str(path), first_harem=views)

        assert outcome(blocks) == outcome(lambda views=views: general_tally(path, views))


@pytest.mark.parametrize("stage", sorted(EMIR_STAGES))
@pytest.mark.parametrize(("source", "chunk_size"), by_chunk_size(ALTS))
def test_emir_blocks_on_reference_inputs(
    source: Path,
    chunk_size: int | None,
    stage: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_chunk_size(chunk_size, monkeypatch)
    emir_both_ways(unzipped(source, tmp_path), stage)


@pytest.mark.parametrize("views", [None, True], ids=["as-written", "2005-views"])
@pytest.mark.parametrize(("source", "chunk_size"), by_chunk_size(EMIRS))
def test_ida_blocks_on_reference_inputs(
    source: Path,
    chunk_size: int | None,
    views: bool | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_chunk_size(chunk_size, monkeypatch)
    tallies_both_ways(unzipped(source, tmp_path), (views,))


@pytest.mark.parametrize(
    ("name", "plain", "parse"),
    [
        ("total_harem.veu.alts.gz", read_plain_record, parse_line),
        ("total_harem.veu.alts.emir.gz", read_plain_emir_record, parse_semantic_line),
    ],
)
def test_reference_lines_are_nearly_all_in_blocks_and_keyed(
    name: str, plain: object, parse: object, tmp_path: Path
) -> None:
    """The block path is the common path (else these tests would test little)."""
    path = unzipped(REFERENCE / "gabriel" / name, tmp_path)
    _, items = iter_keyed_blocks(path, plain, parse)  # type: ignore[arg-type]
    kinds: dict[int | None, int] = {KEYED_LINE: 0, None: 0, OTHER_LINE: 0}
    alone = 0
    for item in items:
        if type(item) is KeyedBlock:
            for match in keyed_lines(item.text):
                kinds[match.lastindex] += 1
        else:
            alone += 1
    assert alone < 10  # the header and the head
    assert kinds[KEYED_LINE] > 0.7 * sum(kinds.values())
    assert kinds[None] > 0.1 * sum(kinds.values())  # DOC, EOD, <ALT> and blank lines


# ---------------------------------------------------------------------------
# The expression over a block against the line reader

ODD_LINES = [
    '<EM ID="a" CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',
    '<EM ID="a" CATEG="LOCAL">Porto</EM> ---> [<EM CATEG="LOCAL">P</EM>]::[Correcto]^0.5',
    '<EM ID="a CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',
    '<EM ID="a',  # a value left open ...
    '" CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',  # ... closed on the next line
    '<EM CATEG="LOCAL">Porto',  # a text left open
    "</EM> ---> [null]:[Em_Falta]",
    '<EM CATEG="LOCAL">Porto</EM> ---> [null]:[',
    "Em_Falta]",
    "DOC H2-1",
    "DOC ",
    "EOD",
    "EOD ",
    "",
    " ",
    "<ALT>",
    "</ALT2>",
    "<ALT03>",
    "<ALT0>",
    "#header",
    "x",
]


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(ODD_LINES), max_size=12), last_end=st.booleans())
def test_one_match_per_line_as_the_line_reader_reads_it(lines: list[str], last_end: bool) -> None:
    one_match_per_line(lines, last_end)


@pytest.mark.parametrize("first", [3, 5])
def test_no_match_reaches_into_the_next_line(first: int) -> None:
    """A value or a text left open at a line end is not closed by the next line."""
    one_match_per_line(ODD_LINES[first : first + 2], last_end=True)


def one_match_per_line(lines: list[str], last_end: bool) -> None:
    """Each match is one line, back to back; a keyed one has :func:`read_keyed_record`'s
    key, the usual other lines are blank, DOC, EOD or ``<ALT>`` lines the general reader
    writes back as read; no match reaches into the next line."""
    text = "\n".join(lines) + ("\n" if last_end and lines else "")
    pos = 0
    bodies = text.split("\n")
    if text.endswith("\n"):
        bodies.pop()
    matches = list(keyed_lines(text))
    assert len(matches) == (len(bodies) if text else 0)
    for body, match in zip(bodies, matches, strict=False):
        assert match.start() == pos
        pos = match.end()
        assert match.group().removesuffix("\n") == body
        keyed = read_keyed_record(body)
        if match.lastindex == KEYED_LINE:
            assert match.group().endswith("\n")
            assert keyed is not None
            assert match.group(*KEY_GROUPS) == keyed.key
            assert match.start(KEYED_LINE) - match.start() == keyed.head_end
        elif match.lastindex is None:
            assert keyed is None
            assert match.group().endswith("\n")
            assert re.fullmatch(r"DOC .*|EOD|</?ALT(?:[1-9][0-9]*)?>|", body)
            assert format_line(parse_line(body)) == body
        else:
            assert match.lastindex == OTHER_LINE
            assert keyed is None or not match.group().endswith("\n")
    assert pos == len(text)


# ---------------------------------------------------------------------------
# Generated files


def emir_and_ida_both_ways(text: str, veu: Path) -> None:
    """``text`` as a ``.veu``: every Emir variant on it, and Ida on its general Emir file,
    on the blocks and on the general reader."""
    veu.write_bytes(text.encode("latin-1"))
    for stage in EMIR_STAGES:
        emir_both_ways(veu, stage)
    emir = general_emir(veu)
    if emir is not None:
        tallies_both_ways(emir)


SLOW = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SLOW
@given(text=veu_files())
def test_emir_and_ida_blocks_on_generated_files(text: str, tmp_path: Path) -> None:
    emir_and_ida_both_ways(text, tmp_path / "g.veu")


@SLOW
@given(text=repeated_key_files(), crlf=st.integers(0, 3), cut=st.integers(0, 5))
def test_emir_and_ida_blocks_on_records_of_one_key(
    text: str, crlf: int, cut: int, tmp_path: Path
) -> None:
    """Records of a few keys again and again (the cache's hits), in files with a CRLF line
    (read line by line), a last line without its end, or a line cut short."""
    lines = text.split("\n")
    if crlf == 0 and len(lines) > 3:
        lines[2] += "\r"
    if cut == 0:
        lines[-2] = lines[-2][: len(lines[-2]) // 2]
    text = "\n".join(lines)
    if cut == 1:
        text = text.removesuffix("\n")
    emir_and_ida_both_ways(text, tmp_path / "r.veu")
