"""The record stages a block at a time (``pipeline/blocks.py``) and as one stream.

Vizir, AltinaMor, Ida2Mor, AvalIDa, Véus and AltinaID read a file larger
than a block a block of whole lines at a time, on worker processes; the
outputs, counts and errors must be the one-stream run's, on the campaign
runs of both collection formats and on random files built from well-formed
and malformed pieces.
"""

from __future__ import annotations

import functools
import itertools
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    block_lines,
    iter_lines,
    open_raw_lines,
)
from harem_pipeline.pipeline.ida2mor import count_altmor_file
from harem_pipeline.pipeline.morphology import run_altmor, run_vizir
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.reports.ida2mor import JSON_COUNT_KEYS, json_row
from harem_pipeline.stages.ida2mor import (
    MorphologyTotals,
    morphology_document_rows,
)
from harem_pipeline.stages.tally import row_names
from harem_pipeline.stages.vizir import Scenario
from tests.helpers.blocks import blockwise, campaign_evaluated, same_in_blocks, spread_sizes
from tests.helpers.strategies import seeded

CASES = Path(__file__).parent / "cases"
SCENARIOS = (Scenario.ABSOLUTE, Scenario.RELATIVE)


def outcome(action: Callable[[], object]) -> object:
    """What ``action`` gives, or the text of the input error it raises."""
    try:
        return action()
    except InputError as error:
        return f"error: {error}"


def vizir_outcome(path: Path, scenario: Scenario) -> object:
    def run() -> object:
        result = run_vizir(path, scenario, path.with_name("out.vizir"))
        return None if result.output is None else result.output.read_bytes()

    return outcome(run)


def altmor_outcome(path: Path) -> object:
    return outcome(lambda: run_altmor(path, path.with_name("out.altmor")).read_bytes())


def counts_outcome(path: Path) -> object:
    def run() -> object:
        counts = count_altmor_file(path)[1]
        return counts, morphology_document_rows(counts.documents)

    return outcome(run)


def chain_outcomes(path: Path) -> list[object]:
    """Vizir (both scenarios), then AltinaMor and Ida2Mor on its output and on the input;
    an output is read on as the next input."""
    vizir, altmor, counts = vizir_outcome, altmor_outcome, counts_outcome
    outcomes: list[object] = []

    def altmor_and_counts(source: Path) -> None:
        chosen = altmor(source)
        outcomes.extend([chosen, counts(source)])
        if isinstance(chosen, bytes):
            resolved = source.with_name("chain.altmor")
            resolved.write_bytes(chosen)
            outcomes.append(counts(resolved))

    for scenario in SCENARIOS:
        scored = vizir(path, scenario)
        outcomes.append(scored)
        if isinstance(scored, bytes):
            written = path.with_name(f"chain.{scenario.short}.vizir")
            written.write_bytes(scored)
            altmor_and_counts(written)
    altmor_and_counts(path)
    return outcomes


def check_chain(path: Path, one_stream: list[object]) -> None:
    """The outcomes are those of the run as one stream (``one_stream``, known already)."""
    assert chain_outcomes(path) == one_stream


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[object]]:
    """The campaign's Véus file and the one-stream outcomes on it (worked out once)."""
    source = tmp_path_factory.mktemp("campaign") / "r.veu"
    source.write_bytes(campaign_veus())
    return source, chain_outcomes(source)


# ---------------------------------------------------------------------------
# Random files

HEAD_NAMES = [
    "LOCAL",
    "PESSOA",
    "EM",
    "ESPURIO",
    "COISA|ESPURIO",
    "OMITIDO",
    "X",
    "VERIFICACAO_MANUAL",
]
ATTRIBUTES = [
    ' TIPO="ALARGADO"',
    ' MORF="M,S"',
    ' MORF="F,P"',
    ' MORF="?,?"',
    ' MORF="?,S"',
    ' MORF="M,?"',
    ' MORF="X,S"',
    ' MORF=" F , S "',
    ' CATEG="ESPURIO"',
    ' CATEG="PESSOA|ESPURIO"',
    '  MORF="M,S"',
    ' MORF="M><S"',
]
TEXTS = ["Abril", "17 de Abril", "Hotel Lisboa", "Lisboa", "-", "", "a<b", "D.Francisco", "x, y"]
TEXTS += ["a]b", "4000m²", "Rússia"]
ITEMS = [
    "Correcto",
    "Em_Falta",
    "Espurio",
    "Espúrio",
    "Parcialmente_Correcto_por_Excesso(0.25; 0.75)",
    "Parcialmente_Correcto_por_Defeito(0.5; 0.5)",
    "Parcialmente_Correcto_por_Defeito(x; 0.5)",
    "Bogus",
    "{Categoria(Correcto:[PESSOA])}",
    "(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)",
]
VERDICTS = [
    "(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)",
    "(Género: Parcialmente Correcto 0.5) (Número: Incorrecto 0) (Combinada: Incorrecto 0)",
    "(Género: Em Falta 0) (Número: Em Falta 0) (Combinada: Em Falta 0)",
    "(Género: Espúrio 0) (Número: Espúrio 0) (Combinada: Espúrio 0)",
    "(Género: Espurio 0) (Número: Espurio 0) (Combinada: Espurio 0)",
    "(Género: Sobre especificado 0) (Número: Correcto 1) (Combinada: Incorrecto 0)",
    "(Género: Parcialmente sobre especificado 0) (Número: Parcialmente Correcto 0.5) "
    "(Combinada: Incorrecto 0)",
    "(Género: Correcto 1.0) (Número: Correcto 1) (Combinada: Correcto 1)",
    "(Género: Correcto 0) (Número: Correcto 1) (Combinada: Correcto 1)",
    "(Número: Correcto 1) (Género: Correcto 1) (Combinada: Correcto 1)",
    "(Género:  Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)",
    "(Género: Correcto 1), (Número: Correcto 1) (Combinada: Correcto 1)",
]
OTHER_LINES = ["", "#header", "# Cenário: absoluto", "DOC d1", "DOC d2", "EOD", "HAREM-1-2 PT Web"]
OTHER_LINES += ["<ALT>", "<ALT1>", "</ALT1>", "<ALT2>", "</ALT2>", "</ALT>", "<ALT01>"]
OTHER_LINES += [
    "<OMITIDO>x</OMITIDO>",
    "<VERIFICACAO_MANUAL>x</VERIFICACAO_MANUAL>",
    "[<EM>x</EM>]",
]


# Files are built from a seed hypothesis draws (``seeded``): drawing each of a
# file's choices cost hypothesis more than the checks on the file.
MARKERS = (":", ":", ":", "::", "")
SUFFIXES = ("", "", "", "^0.5", " ")


def random_tag(rng: random.Random, names: tuple[str, ...], attributes: tuple[str, ...]) -> str:
    name = rng.choice(names)
    attrs = "".join(rng.choices(attributes, k=rng.randint(0, 2)))
    closing = name if rng.randint(0, 30) else "Y"
    return f"<{name}{attrs}>{rng.choice(TEXTS)}</{closing}>"


RecordParts = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
"""The tag names, attributes and evaluation items a record is made of."""


def random_record(rng: random.Random, parts: RecordParts) -> str:
    names, attributes, items = parts
    gold = random_tag(rng, names, attributes)
    system = [random_tag(rng, names, attributes) for _ in range(rng.randint(0, 3))]
    listed = "[null]" if not system and rng.random() < 0.5 else "[" + ", ".join(system) + "]"
    count = max(1, len(system)) if rng.randint(0, 6) else rng.randint(0, 3)
    evaluation = ", ".join(rng.choices(items, k=count))
    marker, suffix = rng.choice(MARKERS), rng.choice(SUFFIXES)
    return (
        f"{gold} ---> {listed}{marker}[{evaluation}]{suffix}" if marker else f"{gold} ---> {listed}"
    )


def random_file(rng: random.Random, parts: RecordParts) -> bytes:
    """Up to 12 lines, each a record three times in four, else another line."""
    lines = [
        random_record(rng, parts) if rng.randint(0, 3) else rng.choice(OTHER_LINES)
        for _ in range(rng.randint(0, 12))
    ]
    eol = "\r\n" if rng.random() < 0.5 else "\n"
    text = eol.join(lines) + (eol if rng.random() < 0.5 else "")
    return text.encode("iso-8859-1" if rng.random() < 0.5 else "utf-8", errors="replace")


VEUS_PARTS = (tuple(HEAD_NAMES), tuple(ATTRIBUTES), tuple(ITEMS))
VIZIR_PARTS = (("EM", "ESPURIO", "EM", "LOCAL"), tuple(ATTRIBUTES[1:8]), tuple(VERDICTS))
VEUS_FILES = seeded(lambda rng: random_file(rng, VEUS_PARTS))
VIZIR_FILES = seeded(lambda rng: random_file(rng, VIZIR_PARTS))


# ---------------------------------------------------------------------------
# A block at a time (pipeline/blocks.py)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(VEUS_FILES, VIZIR_FILES), st.integers(1, 80))
def test_random_files_a_block_at_a_time(data: bytes, chunk: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.veu"
        source.write_bytes(data)
        one_stream = chain_outcomes(source)
        with blockwise(chunk):
            check_chain(source, one_stream)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VIZIR_FILES, st.integers(1, 40))
def test_altmor_cut_anywhere_still_gives_the_one_stream_outcome(data: bytes, chunk: int) -> None:
    """Blocks cut inside ALT blocks fail, and the file is read again as one stream."""
    import harem_pipeline.pipeline.morphology as steps

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.vizir"
        source.write_bytes(data)
        one_stream = altmor_outcome(source)
        with blockwise(chunk), pytest.MonkeyPatch.context() as patch:
            patch.setattr(steps, "cut_outside_alt", lambda blocks: blocks)
            assert altmor_outcome(source) == one_stream


@functools.cache
def campaign_veus() -> bytes:
    """The Véus result of the First HAREM collection against the simulated weak run."""
    from harem_pipeline.pipeline.align import run_align
    from harem_pipeline.pipeline.identification import run_avalida, run_veus
    from tests.helpers.paths import DATA

    with tempfile.TemporaryDirectory() as folder:
        aligned, _ = run_align(
            DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
            DATA / "campaign" / "sim-weak.txt.gz",
            Path(folder) / "r.alinhado",
        )
        return run_veus(run_avalida(aligned), SubsetParams(), Path(folder) / "r.veu").read_bytes()


@pytest.mark.parametrize("chunk", [997, 1 << 14])
def test_campaign_run_cut_outside_alt_blocks(chunk: int, campaign) -> None:
    """Valid files with many ALT blocks, cut a block at a time with no second reading:
    the chain's outputs and counts are the one-stream run's."""
    source, one_stream = campaign
    assert source.read_bytes().count(b"\n<ALT>") > 50
    with blockwise(chunk, fallback=False):
        check_chain(source, one_stream)


def test_campaign_run_on_two_workers(tmp_path: Path) -> None:
    """Worker processes write the bytes one stream writes, and count the same."""
    from harem_pipeline.pipeline.blocks import uses_workers
    from harem_pipeline.pipeline.ida2mor import run_ida2mor

    if not uses_workers(2):
        pytest.skip("worker processes cannot be forked here")
    source = tmp_path / "r.veu"
    source.write_bytes(campaign_veus())
    outputs = {}
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        with blockwise(4096, pooled=True, fallback=False):
            vizir = run_vizir(source, Scenario.ABSOLUTE, folder / "r.vizir", workers=workers)
            assert vizir.output is not None
            altmor = run_altmor(vizir.output, folder / "r.altmor", workers=workers)
            params = ReportParams(scenario=Scenario.ABSOLUTE)
            report = run_ida2mor(altmor, params, "s", folder / "r.mor", workers=workers)
        names = ("r.vizir", "r.altmor", "r.mor", "r.mor.json")
        outputs[workers] = [(folder / name).read_bytes() for name in names], vizir.scored
        assert report.counts.total.combinada.total_cd > 0
    assert outputs[2] == outputs[1]


def with_line_inserted(data: bytes, line: str) -> bytes:
    """``data`` (ISO-8859-1) with ``line`` inserted half-way, before a document line."""
    lines = data.decode("iso-8859-1").split("\n")
    middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("HAREM-"))
    return "\n".join([*lines[:middle], line, *lines[middle:]]).encode("iso-8859-1")


def test_an_error_on_workers_is_the_one_stream_error(tmp_path: Path) -> None:
    veus = tmp_path / "bad.veu"
    veus.write_bytes(with_line_inserted(campaign_veus(), "<EM>x</EM> ---> [<EM>x</EM>"))
    (tmp_path / "good.veu").write_bytes(campaign_veus())
    vizir = vizir_outcome(tmp_path / "good.veu", Scenario.ABSOLUTE)
    assert isinstance(vizir, bytes)
    bad_vizir = tmp_path / "bad.vizir"
    bad_vizir.write_bytes(with_line_inserted(vizir, "<ALT2>"))  # outside any ALT block
    (tmp_path / "good.vizir").write_bytes(vizir)
    altmor = altmor_outcome(tmp_path / "good.vizir")
    assert isinstance(altmor, bytes)
    bad_altmor = tmp_path / "bad.altmor"
    bad_altmor.write_bytes(with_line_inserted(altmor, "<ALT>"))
    expected = {
        veus: 'expected ", " or "]" after an entity, found end of line',
        bad_vizir: "expected <ALT> before an alternative, found <ALT2>",
        bad_altmor: "ALT blocks resolved by AltinaMor",
    }
    one_stream = {
        veus: vizir_outcome(veus, Scenario.ABSOLUTE),
        bad_vizir: altmor_outcome(bad_vizir),
        bad_altmor: counts_outcome(bad_altmor),
    }
    with blockwise(512):
        found = vizir_outcome(veus, Scenario.ABSOLUTE)
        assert found == one_stream[veus]
        assert isinstance(found, str) and expected[veus] in found
        found = altmor_outcome(bad_vizir)
        assert found == one_stream[bad_vizir]
        assert isinstance(found, str) and expected[bad_vizir] in found
        found = counts_outcome(bad_altmor)
        assert found == one_stream[bad_altmor]
        assert isinstance(found, str) and expected[bad_altmor] in found


def test_run_with_fallback_retries_on_one_stream_only_after_workers() -> None:
    from harem_pipeline.pipeline import blocks

    calls: list[int | None] = []

    def run(workers: int | None) -> str:
        calls.append(workers)
        if workers != 1:
            raise InputError("f", "a block", "a cut ALT block", line=3)
        return "one stream"

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blocks, "uses_workers", lambda workers=None: workers != 1)
        assert blocks.run_with_fallback(run, 2) == "one stream"
        assert calls == [2, 1]
        with pytest.raises(InputError):
            blocks.run_with_fallback(lambda workers: run(5) if workers == 1 else "", 1)


def test_standard_output_gets_only_the_run_that_succeeds(tmp_path: Path, capfdbinary) -> None:
    """What a run on workers wrote before failing never reaches standard output: the
    one-process run after it is all there is (written once, at the end)."""
    import harem_pipeline.pipeline.blocks as blocks

    source = tmp_path / "r.veu"
    source.write_bytes(campaign_veus())
    expected = vizir_outcome(source, Scenario.ABSOLUTE)
    assert isinstance(expected, bytes)

    calls: list[int] = []

    def failing_late(function, items, workers):  # type: ignore[no-untyped-def]
        calls.append(workers)
        yield function(next(iter(items)))  # the first block's output, then an input error
        raise InputError(str(source), "a block the workers read", "a failure")

    with blockwise(512), pytest.MonkeyPatch.context() as patch:
        patch.setattr(blocks, "ordered_map", failing_late)
        run_vizir(source, Scenario.ABSOLUTE, "-", workers=2)
        assert capfdbinary.readouterr().out == expected
    assert calls == [2]  # the workers' run did start, and write its first block


def _state_after(data: bytes) -> int:
    """The state a reader of ALT blocks (the Java's) is left in by ``data``, from 0."""
    from harem_pipeline.formats.alinhado import next_alt_state

    state = 0
    for line in data.split(b"\n"):
        text = line.decode()
        if text.startswith(("<ALT", "</ALT")) and text.endswith(">"):
            number = text.strip("</ALT>")
            moved = next_alt_state(
                state, not text.startswith("</"), int(number) if number else None
            )
            state = state if moved is None else moved
    return state


ALT_LINES = st.lists(
    st.sampled_from(["r", "", "HAREM-1 PT Web"])
    | st.just(["<ALT>", "<ALT1>", "r", "</ALT1>", "<ALT2>", "r", "r", "</ALT2>", "</ALT>"])
    | st.just(["<ALT>", "</ALT>"]),  # no alternative: the readers wait on for an <ALTn>
    max_size=30,
)


def line_blocks(data: bytes, sizes: list[int]) -> list[tuple[int, bytes]]:
    """``data`` as numbered blocks of whole lines, about ``sizes[i]`` bytes each, in turn."""
    blocks, at, number = [], 0, 1
    for size in itertools.cycle(sizes):
        if at >= len(data):
            break
        end = data.find(b"\n", at + size - 1) + 1 or len(data)
        blocks.append((number, data[at:end]))
        number += data.count(b"\n", at, end)
        at = end
    return blocks


@settings(max_examples=200, deadline=None)
@given(ALT_LINES, st.lists(st.integers(1, 40), min_size=1, max_size=40))
def test_cut_outside_alt_keeps_the_lines_and_cuts_between_blocks(
    pieces: list, sizes: list[int]
) -> None:
    from harem_pipeline.pipeline.morphology import cut_outside_alt

    lines = [line for piece in pieces for line in ([piece] if isinstance(piece, str) else piece)]
    data = "".join(line + "\n" for line in lines).encode()
    cut = list(cut_outside_alt(iter(line_blocks(data, sizes))))
    assert b"".join(block for _, block in cut) == data
    assert all(block for _, block in cut)
    assert [first for first, _ in cut] == [
        1 + b"".join(block for _, block in cut[:i]).count(b"\n") for i in range(len(cut))
    ]
    assert all(_state_after(block) == 0 for _, block in cut[:-1])
    assert _state_after(data) == (_state_after(cut[-1][1]) if cut else 0)


def test_cut_outside_alt_worked_example() -> None:
    from harem_pipeline.pipeline.morphology import cut_outside_alt

    blocks = [(1, b"a\n<ALT>\n"), (3, b"<ALT1>\nx\n"), (5, b"</ALT1>\n</ALT>\nb\n"), (8, b"c")]
    assert list(cut_outside_alt(iter(blocks))) == [
        (1, b"a\n"),
        (2, b"<ALT>\n<ALT1>\nx\n</ALT1>\n</ALT>\nb\n"),
        (8, b"c"),
    ]


def test_cut_outside_alt_an_alt_block_with_no_alternative_closes_nothing() -> None:
    """``<ALT>`` then ``</ALT>``: the Java's readers still wait for an ``<ALTn>``, so the
    lines from that ``<ALT>`` go on to a block that closes one properly."""
    from harem_pipeline.pipeline.morphology import cut_outside_alt

    blocks = [(1, b"a\n<ALT>\n</ALT>\nb\n"), (5, b"c\n<ALT>\n<ALT1>\nx\n</ALT1>\n</ALT>\nd\n")]
    assert list(cut_outside_alt(iter(blocks))) == [
        (1, b"a\n"),
        (2, b"<ALT>\n</ALT>\nb\nc\n<ALT>\n<ALT1>\nx\n</ALT1>\n</ALT>\nd\n"),
    ]


def test_cut_outside_alt_a_file_ending_inside_an_alt_block() -> None:
    # The last open block is handed on whole, unclosed, for the stage to refuse as one stream.
    from harem_pipeline.pipeline.morphology import cut_outside_alt

    blocks = [(1, b"a\nb\n"), (3, b"<ALT>\nx\n"), (5, b"y\n")]
    assert list(cut_outside_alt(iter(blocks))) == [(1, b"a\nb\n"), (3, b"<ALT>\nx\ny\n")]


# ---------------------------------------------------------------------------
# AvalIDa, Véus and AltinaID a block at a time

ID_LINES = ["DOC d1", "DOC d2", "HAREM-1-2 PT Web", "HAREM-7 BR Literário", "EOD", "#header"]


def identification_outcomes(path: Path) -> list[object]:
    """AvalIDa, Véus (three styles, a veil, a variant) and AltinaID on ``path``."""
    from harem_pipeline.pipeline.identification import run_altida, run_avalida, run_veus

    out = path.with_name("out")
    runs: list[Callable[[], Path]] = [
        lambda: run_avalida(path, out),
        lambda: run_altida(path, out),
    ]
    for params in (
        SubsetParams(),
        SubsetParams(style="muc"),
        SubsetParams(style="relaxado", veil="PESSOA:LOCAL"),
        SubsetParams(variant="PT"),
    ):
        runs.append(functools.partial(run_veus, path, params, out))
    return [outcome(functools.partial(_read_output, run)) for run in runs]


def _read_output(run: Callable[[], Path]) -> bytes:
    return run().read_bytes()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(VEUS_FILES, VIZIR_FILES), st.lists(st.sampled_from(ID_LINES), max_size=4))
def test_identification_stages_a_block_at_a_time(data: bytes, extra: list[str]) -> None:
    """Random files with document lines of both formats and misplaced ``#`` lines: every
    outcome (bytes or error) is the one-stream run's, in blocks of 1 to 80 bytes."""
    data += "".join(f"\n{line}" for line in extra).encode()
    same_in_blocks(identification_outcomes, data, "in.avalida", (1, 17, 80))


@pytest.mark.parametrize("kind", ["first", "second"])
def test_campaign_runs_cut_at_documents_and_outside_alt_blocks(kind: str, tmp_path: Path) -> None:
    """Valid files of both formats, cut a block at a time with no second reading (a cut
    that broke a document or an ALT block would fail or differ): the same bytes."""
    from harem_pipeline.pipeline.identification import run_altida, run_avalida, run_veus

    evaluated = tmp_path / "r.avalida"
    evaluated.write_bytes(campaign_evaluated(kind))
    aligned_source = {"first": b"\nHAREM-", "second": b"\nDOC "}[kind]
    assert evaluated.read_bytes().count(aligned_source) > 50

    def outputs() -> list[bytes]:
        veu = run_veus(evaluated, SubsetParams(style="relaxado"), tmp_path / "r.veu")
        return [
            run_avalida(evaluated, tmp_path / "again.avalida").read_bytes(),
            veu.read_bytes(),
            run_altida(veu, tmp_path / "r.altida").read_bytes(),
            run_veus(evaluated, SubsetParams(veil="PESSOA"), tmp_path / "p.veu").read_bytes(),
        ]

    one_stream = outputs()
    with blockwise(2048, fallback=False):
        assert outputs() == one_stream
    with blockwise(1 << 14, pooled=True, fallback=False):
        assert outputs() == one_stream


def test_a_header_line_in_a_later_block_is_refused_with_its_line(tmp_path: Path) -> None:
    """AvalIDa's rule (``#`` lines only on lines 1 and 2) holds in every block: a block
    does not start at line 1."""
    from harem_pipeline.pipeline.identification import run_avalida

    aligned = tmp_path / "r.alinhado"
    lines = campaign_evaluated("second").split(b"\n")
    lines.insert(len(lines) // 2, b"# another file")
    aligned.write_bytes(b"\n".join(lines))
    with blockwise(1024, fallback=False), pytest.raises(InputError) as raised:
        run_avalida(aligned, tmp_path / "out")
    assert raised.value.line == len(lines) // 2 + 1
    assert "on lines 1 and 2 only" in str(raised.value)


DOCUMENT_LINES = st.lists(
    st.sampled_from(["<r> ---> [r]", "", "DOC d", "HAREM-1 PT Web", "#x", "DOCX", "<ALT>", "EOD"]),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(DOCUMENT_LINES, st.lists(st.integers(1, 40), min_size=1, max_size=40))
def test_cut_before_documents_keeps_the_lines_and_starts_blocks_at_documents(
    lines: list[str], sizes: list[int]
) -> None:
    from harem_pipeline.pipeline.blocks import cut_before_documents

    data = "".join(line + "\n" for line in lines).encode()
    cut = list(cut_before_documents(iter(line_blocks(data, sizes))))
    assert b"".join(block for _, block in cut) == data
    assert all(block for _, block in cut)
    assert [first for first, _ in cut] == [
        1 + b"".join(block for _, block in cut[:i]).count(b"\n") for i in range(len(cut))
    ]
    assert all(block.startswith((b"DOC ", b"HAREM-1 PT Web\n")) for _, block in cut[1:])
    before = [b"".join(block for _, block in cut[:i]) for i in range(1, len(cut))]
    assert all(head.rstrip(b"\n").endswith((b"EOD", b" ---> [r]")) for head in before)


def test_cut_before_documents_worked_example() -> None:
    from harem_pipeline.pipeline.blocks import cut_before_documents

    r = b"<EM>a</EM> ---> [null]\n"
    blocks = [(1, b"# a\nDOC x\n" + r), (4, r + b"EOD\n"), (6, b"DOC y\n" + r + b"H-1 PT Web\r\n")]
    blocks.append((9, b"DOC z\nH-2 PT Web\n" + r))
    assert list(cut_before_documents(iter(blocks))) == [
        (1, b"# a\nDOC x\n" + r + r + b"EOD\n" + b"DOC y\n" + r),  # not at the first line
        # the last document line after a record; DOC z opens its block, whose
        # previous line is not looked for, and H-2 right after it only renames it
        (8, b"H-1 PT Web\r\nDOC z\nH-2 PT Web\n" + r),
    ]


@settings(max_examples=300, deadline=None)
@given(DOCUMENT_LINES, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_last_document_start_is_the_last_document_line_after_a_record(
    lines: list[str], eol: str, open_end: bool
) -> None:
    """The scan from the end finds the line a scan of every line finds last."""
    import re

    from harem_pipeline.pipeline.blocks import last_document_start

    data = "".join(line + eol for line in lines).encode()
    if open_end:
        data = data.removesuffix(eol.encode())
    starts = [
        m.start() for m in re.finditer(rb"^(?:DOC |[A-Za-z]+-[\w-]+ \S+ \S+\r?$)", data, re.M)
    ]
    after = [
        start
        for start in starts
        if (previous := [line for line in data[:start].splitlines() if line][-1:])
        and (previous[0] == b"EOD" or (previous[0][:1] == b"<" and b" ---> " in previous[0]))
    ]
    assert last_document_start(data) == (after[-1] if after else None)


# ---------------------------------------------------------------------------
# The chunked reader


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "é", "\r", "\n", "\r\n", "\ufeff", "x y"]), max_size=30),
    st.sampled_from(["utf-8", "iso8859-1"]),
    st.integers(1, 8),
)
def test_chunked_reader_reads_lines_as_iter_lines(
    pieces: list[str], encoding: str, chunk: int
) -> None:
    """Lines, numbers and line ends as the line-by-line reader gives them, at any chunk size;
    the lines of the undecoded blocks (``block_lines`` of each, in order) are the same."""
    import harem_pipeline.formats.alinhado as alinhado_format
    from harem_pipeline.formats.alinhado import open_raw_blocks

    data = "".join(pieces).encode(encoding, errors="replace")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f"
        path.write_bytes(data)
        raw = lambda text, name, number, eol: (number, text, eol)  # noqa: E731
        expected = list(iter_lines(path, raw)[1]) if encoding == "utf-8" else None
        original = alinhado_format.CHUNK_BYTES
        alinhado_format.CHUNK_BYTES = chunk
        try:
            got = list(open_raw_lines(path)[1])
            found, blocks = open_raw_blocks(path)
            assert blocks is not None
            read = [line for block in blocks for line in block_lines(block, str(path), found)]
        finally:
            alinhado_format.CHUNK_BYTES = original
        if expected is not None:
            assert got == expected
        assert read == got
        assert "".join(text + eol for _, text, eol in got).encode(encoding) == data.removeprefix(
            b"\xef\xbb\xbf" if encoding == "utf-8" else b""
        )


def test_chunked_reader_reports_the_undecodable_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.veu"
    path.write_bytes(b"\xef\xbb\xbfline one\nline \xff two\nthree\n")
    lines = open_raw_lines(path)[1]
    with pytest.raises(InputError) as raised:
        list(lines)
    raw = lambda text, name, number, eol: (number, text, eol)  # noqa: E731
    with pytest.raises(InputError) as general:
        list(iter_lines(path, raw)[1])
    assert str(raised.value) == str(general.value)
    assert "line 2" in str(raised.value)


# ---------------------------------------------------------------------------
# The JSON report's names


def test_json_names_are_the_partition_rule() -> None:
    for name in row_names(MorphologyTotals):
        key, _, count = name.partition(".")
        assert json_row({name: 1}) == {f"{key}.{JSON_COUNT_KEYS[count]}": 1}
    with pytest.raises(KeyError):
        json_row({"genero.unknown": 1})


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab\r", max_size=6), max_size=30),
    st.booleans(),
    st.integers(1, 6),
    st.integers(1, 40),
)
def test_even_blocks_cut_the_same_lines_at_line_ends(
    lines: list[str], last_end: bool, parts: int, first: int
) -> None:
    from harem_pipeline.pipeline.blocks import even_blocks

    data = "\n".join(lines).encode() + (b"\n" if last_end and lines else b"")
    given_blocks = [(first + data.count(b"\n", 0, at), piece) for at, piece in [(0, data)]]
    even = even_blocks(given_blocks if data else [], parts)
    assert b"".join(block for _, block in even) == data
    assert 1 <= len(even) <= parts
    assert all(block.endswith(b"\n") for _, block in even[:-1])
    assert all(block for _, block in even) or even == [(1, b"")]
    start = first if data else 1
    assert [number for number, _ in even] == [
        start + b"".join(block for _, block in even[:i]).count(b"\n") for i in range(len(even))
    ]
    longest = max((len(line) + 1 for line in data.split(b"\n")), default=0)
    assert all(len(block) <= len(data) // parts + longest for _, block in even[:-1])


@pytest.mark.parametrize("workers", [2, 3])
def test_a_small_file_is_read_a_block_per_worker(
    workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of a few blocks starts no pool: it is cut into a block per worker, the first
    read here and each other in a process forked for it.  Every record stage writes
    the bytes of the one-stream run (one worker), and counts the same."""
    from harem_pipeline.pipeline.blocks import uses_workers
    from harem_pipeline.pipeline.ida2mor import run_ida2mor
    from harem_pipeline.pipeline.identification import run_altida, run_avalida, run_veus

    if not uses_workers(workers):
        pytest.skip("worker processes cannot be forked here")
    evaluated = tmp_path / "r.avalida"
    evaluated.write_bytes(campaign_evaluated("first"))  # a First HAREM run: morphology
    spread_over = spread_sizes(monkeypatch)

    def outputs(workers: int) -> list[bytes]:
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        veu = run_veus(evaluated, SubsetParams(), folder / "r.veu", workers=workers)
        vizir = run_vizir(veu, Scenario.ABSOLUTE, folder / "r.vizir", workers=workers)
        assert vizir.output is not None
        altmor = run_altmor(vizir.output, folder / "r.altmor", workers=workers)
        params = ReportParams(scenario=Scenario.ABSOLUTE)
        run_ida2mor(altmor, params, "s", folder / "r.mor", workers=workers)
        run_avalida(evaluated, folder / "again.avalida", workers=workers)
        run_altida(veu, folder / "r.altida", workers=workers)
        names = ("r.veu", "r.vizir", "r.altmor", "r.mor", "r.mor.json", "again.avalida")
        return [(folder / name).read_bytes() for name in (*names, "r.altida")]

    one_stream = outputs(1)
    assert spread_over == []
    assert outputs(workers) == one_stream
    # a block per worker; Véus's cut before documents hands the last document on as one more
    assert len(spread_over) == 6 and spread_over.count(workers) == 5
    assert spread_over[0] in (workers, workers + 1)
