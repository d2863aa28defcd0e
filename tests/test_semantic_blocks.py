"""The semantic stages and Ida a block at a time (``pipeline/blocks.py``) and as one stream.

alts, espurios, Emir, ALTina (altsem) and Ida read a large file a block of
whole lines at a time on worker processes; every output, every count (to the
last digit: Ida adds the blocks' values in the file's order) and every error
must be the one-stream run's, on the campaign runs of both collection formats,
on the rule that reaches across blocks (alts drops a spurious record whose
entity an earlier ALT block left), and on random files.
"""

from __future__ import annotations

import functools
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from harem_pipeline.errors import InputError
from harem_pipeline.pipeline.ida_counts import read_tally
from harem_pipeline.pipeline.params import SubsetParams
from harem_pipeline.pipeline.semantic import run_alts, run_altsem, run_emir, run_espurios
from harem_pipeline.stages.emir import EmirParams
from tests.helpers.blocks import blockwise, campaign_evaluated, same_in_blocks, spread_sizes
from tests.helpers.strategies import seeded


def outcome(action: Callable[[], object]) -> object:
    """What ``action`` gives, or the text of the input error it raises."""
    try:
        return action()
    except InputError as error:
        return f"error: {error}"


def written(run: Callable[[], Path]) -> object:
    return outcome(lambda: run().read_bytes())


def tally(path: Path, workers: int | None = None) -> object:
    return outcome(lambda: read_tally(path, workers=workers)[1])


def semantic_outcomes(source: Path, workers: int | None = None) -> list[object]:
    """alts on ``source`` and Ida on it; espurios and Emir (both scenarios) on the
    ``.alts``; Ida and altsem on each ``.emir``; Ida on each ``.altrel``: each output's
    bytes, each tally, or the input error."""
    folder = source.parent
    alts = folder / "o.alts"
    found = [written(lambda: run_alts(source, alts, workers)), tally(source, workers)]
    if not isinstance(found[0], bytes):
        return found
    found.append(written(lambda: run_espurios(alts, folder / "o.espurios", workers)))
    for relative in (False, True):
        emir = folder / f"o{relative}.emir"
        params = EmirParams(relative=relative)
        found.append(written(functools.partial(run_emir, alts, params, emir, workers)))
        if isinstance(found[-1], bytes):
            found.extend(altsem_outcomes(emir, workers))
    return found


def altsem_outcomes(emir: Path, workers: int | None = None) -> list[object]:
    """Ida and altsem on an ``.emir``, Ida on its ``.altrel``."""
    altrel = emir.with_suffix(".altrel")
    found = [tally(emir, workers), written(lambda: run_altsem(emir, altrel, workers))]
    return [*found, tally(altrel, workers)] if isinstance(found[-1], bytes) else found


def campaign_veus(kind: str) -> bytes:
    """The Véus file of a campaign run: ``first`` (document lines) or ``second`` (``DOC``)."""
    from harem_pipeline.pipeline.identification import run_veus

    with tempfile.TemporaryDirectory() as folder:
        evaluated = Path(folder) / "r.avalida"
        evaluated.write_bytes(campaign_evaluated(kind))
        return run_veus(evaluated, SubsetParams(), Path(folder) / "r.veu").read_bytes()


@pytest.mark.parametrize("kind", ["first", "second"])
def test_campaign_runs_a_block_at_a_time(kind: str, tmp_path: Path) -> None:
    """Valid files of both formats with many ALT blocks, cut outside ALT blocks with no
    second reading, in this process and on two worker processes: the same bytes and
    the same sums."""
    source = tmp_path / "r.veu"
    source.write_bytes(campaign_veus(kind))
    assert source.read_bytes().count(b"\n<ALT>") > 50
    one_stream = semantic_outcomes(source)
    assert all(not isinstance(found, str) for found in one_stream[2:])
    assert len(one_stream) == 11
    with blockwise(2048, fallback=False):
        assert semantic_outcomes(source) == one_stream
    with blockwise(1 << 14, pooled=True, fallback=False):
        assert semantic_outcomes(source) == one_stream


@pytest.mark.parametrize("workers", [2, 3])
def test_a_small_file_is_read_a_block_per_worker(
    workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of a few blocks starts no pool: a block per worker, the first read here and
    each other in a process forked for it (cut outside ALT blocks for alts and altsem).
    Every output and every sum is the one-stream run's (one worker)."""
    import harem_pipeline.pipeline.blocks as blocks

    if not blocks.uses_workers(workers):
        pytest.skip("worker processes cannot be forked here")
    source = tmp_path / "r.veu"
    source.write_bytes(campaign_veus("second"))
    spread_over = spread_sizes(monkeypatch)
    one_stream = semantic_outcomes(source, 1)
    assert len(one_stream) == 11 and spread_over == []
    assert semantic_outcomes(source, workers) == one_stream
    assert spread_over == [workers] * 11


LEFT_IN_ALT = """#PESSOA:LOCAL
DOC d1
<EM ID="g1" CATEG="PESSOA">Ana</EM> ---> [<EM ID="s1" CATEG="PESSOA">Ana</EM>]:[Correcto]
<ALT>
<ALT1>
<EM ID="g2" CATEG="LOCAL">Rio</EM> ---> [null]:[Em_Falta]
<EM CATEG="ESPURIO">Rio Grande</EM> ---> [<EM ID="s9" CATEG="LOCAL">Rio Grande</EM>]:[Espurio]
</ALT1>
<ALT2>
<EM ID="g3" CATEG="LOCAL">Rio Grande do Sul</EM> ---> [null]:[Em_Falta]
</ALT2>
</ALT>
EOD
DOC d2
<EM CATEG="ESPURIO">Rio Grande</EM> ---> [<EM ID="s9" CATEG="LOCAL">Rio Grande</EM>]:[Espurio]
<EM CATEG="ESPURIO">Porto</EM> ---> [<EM ID="s8" CATEG="LOCAL">Porto</EM>]:[Espurio]
EOD
"""


@pytest.mark.parametrize("chunk", [1, 64])
def test_a_spurious_entity_left_in_an_earlier_block_is_dropped_across_blocks(
    chunk: int, tmp_path: Path
) -> None:
    """The ALT block leaves ``s9`` spurious; the spurious record of ``s9`` in the next
    document, in another block, is dropped (the Java never forgets the IDs), and the
    one of ``s8`` is kept."""
    source = tmp_path / "left.veu"
    source.write_text(LEFT_IN_ALT, encoding="utf-8")
    one_stream = run_alts(source, tmp_path / "one.alts", workers=1).read_text("utf-8")
    assert one_stream.split("DOC d2\n")[1] == (
        '<EM CATEG="ESPURIO">Porto</EM> ---> [<EM ID="s8" CATEG="LOCAL">Porto</EM>]:[Espurio]\n'
        "EOD\n"
    )
    with blockwise(chunk, fallback=False):
        assert run_alts(source, tmp_path / "blocks.alts").read_text("utf-8") == one_stream


EMPTY_ALT = """#PESSOA:LOCAL
DOC d1
<ALT>
</ALT>
{records}<ALT>
<ALT1>
{records}</ALT1>
</ALT>
EOD
"""
EMIR_ITEM = (
    "{Categoria(Correcto:[PESSOA] Espurio:[] Em_Falta:[]) Tipo(Correcto:[] Espurio:[] "
    "Em_Falta:[]) Subtipo(Correcto:[] Espurio:[] Em_Falta:[]) MaxCSC_CD(1.0) MaxCSC_S(1.0) "
    "CSC(1.0) Peso(1.0)}"
)


def empty_alt_file(folder: Path) -> Path:
    entity = '<EM CATEG="PESSOA">Ana</EM>'
    record = f'<EM ID="g" CATEG="PESSOA">Ana</EM> ---> [{entity}]:[{EMIR_ITEM}]\n'
    source = folder / "empty.emir"
    source.write_text(EMPTY_ALT.format(records=record * 40), encoding="utf-8")
    return source


def test_an_alt_block_with_no_alternative_is_no_place_to_cut(tmp_path: Path) -> None:
    """An ALT block with no alternative leaves the Java's reader waiting for an <ALTn>:
    the records after it, and the next <ALT> line, are copied as they are; the blocks
    are cut after the next block that closes (no second reading needed)."""
    source = empty_alt_file(tmp_path)
    one_stream = run_altsem(source, tmp_path / "one.altrel", workers=1).read_bytes()
    assert one_stream.count(b"<ALT>") == 1  # the next block's, read as a plain line
    assert one_stream.count(b"</ALT>") == 1  # the empty block's
    with blockwise(256, fallback=False):
        assert run_altsem(source, tmp_path / "blocks.altrel").read_bytes() == one_stream
    with blockwise(256, pooled=True, fallback=False):
        assert run_altsem(source, tmp_path / "pooled.altrel").read_bytes() == one_stream


def test_a_block_cut_inside_an_alt_block_sends_the_file_back_to_one_stream(
    tmp_path: Path,
) -> None:
    """Cut anywhere, a block ends inside an ALT block: refused, and the file read again as
    one stream, on real workers too (the pool is still open when the parent finds it)."""
    import harem_pipeline.pipeline.semantic as semantic

    source = empty_alt_file(tmp_path)
    one_stream = run_altsem(source, tmp_path / "one.altrel", workers=1).read_bytes()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(semantic, "cut_outside_alt", lambda blocks: blocks)
        with blockwise(256, pooled=True):
            assert run_altsem(source, tmp_path / "pooled.altrel").read_bytes() == one_stream
        with blockwise(256, fallback=False), pytest.raises(InputError, match="ends in ALT"):
            run_altsem(source, tmp_path / "blocks.altrel")


# ---------------------------------------------------------------------------
# Random files

ATTRIBUTES = (
    ' ID="s1"',
    ' ID="s9"',
    ' CATEG="PESSOA"',
    ' CATEG="LOCAL"',
    ' CATEG="ESPURIO"',
    ' CATEG="PESSOA|LOCAL"',
    ' TIPO="INDIVIDUAL"',
)
ITEMS = (
    "Correcto",
    "Em_Falta",
    "Espurio",
    "Parcialmente_Correcto_por_Defeito(0.25; 0.75)",
    "Parcialmente_Correcto_por_Excesso(0.1; 0.9)",
    "Bogus",
)
OTHER_LINES = ("", "DOC d1", "DOC d2", "EOD", "HAREM-1-2 PT Web", "#x", "<ALT>", "</ALT>")
OTHER_LINES += ("<ALT1>", "</ALT1>", "<ALT2>", "</ALT2>", "[<EM>x</EM>]")


def random_tag(rng: random.Random) -> str:
    attributes = "".join(rng.choices(ATTRIBUTES, k=rng.randint(0, 3)))
    return f"<EM{attributes}>{rng.choice(('Ana', 'Rio', 'Rio Grande', 'x'))}</EM>"


def random_record(rng: random.Random) -> str:
    system = [random_tag(rng) for _ in range(rng.randint(0, 2))]
    listed = "[" + ", ".join(system) + "]" if system else "[null]"
    count = max(1, len(system)) if rng.randint(0, 30) else rng.randint(0, 3)
    evaluation = ", ".join(rng.choices(ITEMS[: 5 if rng.randint(0, 30) else 6], k=count))
    suffix = rng.choice(("",) * 20 + ("^0.5", " x"))
    return f"{random_tag(rng)} ---> {listed}:[{evaluation}]{suffix}"


def random_veus(rng: random.Random) -> bytes:
    """A header (most often), then up to 16 lines, each a record two times in three."""
    lines = ["#PESSOA:LOCAL"] if rng.randint(0, 8) else []
    for _ in range(rng.randint(0, 16)):
        lines.append(random_record(rng) if rng.randint(0, 2) else rng.choice(OTHER_LINES))
    eol = "\r\n" if rng.random() < 0.3 else "\n"
    return (eol.join(lines) + eol).encode("utf-8")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeded(random_veus))
def test_random_files_a_block_at_a_time(data: bytes) -> None:
    """Every outcome (bytes, sums or error) is the one-stream run's, in blocks of 1 to
    80 bytes (an error met in blocks is read again as one stream)."""
    same_in_blocks(semantic_outcomes, data, "in.veu", (1, 23, 80))
