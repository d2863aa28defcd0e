"""Helpers of the semantic-chain tests: reading reference files and comparing lines,
running a stage two ways, and generated record files."""

from __future__ import annotations

import difflib
import gzip
import hashlib
import random
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import strategies as st

import harem_pipeline.formats.alinhado as alinhado_format
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Line, format_line, iter_lines, parse_lines
from harem_pipeline.formats.semantic import iter_semantic_lines, parse_semantic_line
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.emir import EmirParams, evaluate_lines, parse_weights
from harem_pipeline.stages.ida import SemanticTally, tally_semantic
from tests.helpers.strategies import one_in, seeded

ROOT = Path(__file__).resolve().parent.parent.parent
REFERENCE = ROOT / "data" / "reference"


def reference_text(path: Path) -> str:
    """A reference file's text (gzipped, ISO-8859-1)."""
    with gzip.open(path, "rb") as handle:
        return handle.read().decode("latin-1")


def text_lines(text: str) -> list[str]:
    """The lines of a text without line ends (no empty last line)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def comparable(lines: Iterable[str]) -> list[str]:
    """Lines as compared with the Java's: ``#`` lines dropped, ``]::[`` read as ``]:[``."""
    return [line.replace("]::[", "]:[") for line in lines if not line.startswith("#")]


def parsed(path: Path) -> list[Line]:
    """A reference file's parsed lines."""
    return list(parse_lines(reference_text(path), str(path)))


def assert_same_lines(expected: list[str], actual: list[str], name: str) -> None:
    """Equal lists of lines, or a failure showing the unified diff."""
    if expected != actual:
        diff = difflib.unified_diff(
            expected, actual, f"{name} (Java)", f"{name} (ours)", lineterm=""
        )
        raise AssertionError("\n".join(list(diff)[:60]))


# ---------------------------------------------------------------------------
# Reference inputs, and running a stage two ways


def unzipped(source: Path, folder: Path) -> Path:
    target = folder / source.name.removesuffix(".gz")
    target.write_bytes(gzip.decompress(source.read_bytes()))
    return target


VEUS = sorted(REFERENCE.glob("*/*.veu.gz"))
ALTS = sorted(REFERENCE.glob("*/*.veu.alts.gz"))
EMIRS = sorted(
    [*REFERENCE.glob("*/*.emir.gz"), *REFERENCE.glob("*/*.emir_relativo.gz")]
    + list(REFERENCE.glob("*/*.altrel.gz"))
)

SAMPLE = ("exemplo1/total_harem", "gabriel/cenario4_categs_muc", "simulated/mini1_PLO_muc")
"""The reference inputs the fast paths are held to the general path on, one of each source:
a worked example, the real Second HAREM run (in its categories scenario) and a simulated
First HAREM run.  Every reference input is held to the Java's files as a campaign reads it
(test_semantic_reference); the general path (the reading of a line the fast paths do not
take) meets its odd lines in the generated files."""


def sampled(paths: list[Path]) -> list[Path]:
    """The files of ``paths`` from an input of :data:`SAMPLE`."""
    return [p for p in paths if f"{p.parent.name}/{p.name.partition('.')[0]}" in SAMPLE]


TINY_CHUNK = 700
"""A chunk size that cuts the runs and blocks of a reference input thousands of times."""


def set_chunk_size(size: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read with chunks of ``size`` bytes (None: the usual size)."""
    if size is not None:
        monkeypatch.setattr(alinhado_format, "CHUNK_BYTES", size)


def by_chunk_size(paths: list[Path]) -> list[object]:
    """``(path, chunk size)``: the :func:`sampled` paths at the usual size and in tiny chunks."""
    return [
        pytest.param(p, size, id=f"{name}-{p.parent.name}/{p.name}")
        for p in sampled(paths)
        for size, name in ((None, "chunks"), (TINY_CHUNK, "tiny-chunks"))
    ]


def written(items: Iterable[Line | str], marker: str | None) -> str:
    """What the step writes of a stage's output (texts as they are)."""
    return "".join(
        item if isinstance(item, str) else format_line(item, marker) + item.eol for item in items
    )


GENERAL_WRITTEN: dict[tuple, str] = {}
"""What :func:`general_written` worked out, by the file's bytes, the stage and the reading."""


def general_written(
    path: Path,
    stage: Callable[[Iterable, str], Iterable],
    marker: str | None,
    parse: Callable,
    read: Callable[[], Iterable[Line]] | None = None,
) -> str:
    """``written(stage(lines, str(path)), marker)`` of the general path's lines of ``path``
    (``read()``, by default ``iter_lines(path, parse)``), worked out once per process.

    The general path's text is what the fast paths are held to, in test_semantic_plain,
    test_semantic_runs and test_semantic_keyed_blocks alike (which run on one worker:
    conftest.SHARED_WORK); it is kept by the file's bytes, the stage, the marker and the
    line parser, not by the chunk size the fast path under test reads with: the line
    reader gives the same lines at any chunk size (test_record_fast_paths), so the text
    is the same.  A stage that fails is run again each time, so each reports its own error.
    """
    digest = hashlib.sha256(path.read_bytes()).digest()
    key = (digest, stage, marker, parse)
    text = GENERAL_WRITTEN.get(key)
    if text is None:
        if read is None:
            lines = general_lines(digest, parse, lambda: iter_lines(path, parse)[1])
        else:
            lines = read()
        text = written(stage(lines, str(path)), marker)
        GENERAL_WRITTEN[key] = text
    return text


GENERAL_READINGS: OrderedDict[tuple, tuple[Line, ...]] = OrderedDict()
"""The last few files read by :func:`general_lines`, by their bytes and line parser."""


def general_lines(digest: bytes, parse: Callable, read: Callable[[], Iterable]) -> Iterable:
    """``read()``'s lines, read once for the several stages and views the general path
    runs on the same file in turn (the lines are immutable).  A reading that fails is not
    kept: the caller then reads lazily, so its own error comes first, as it would."""
    key = (digest, parse)
    if key not in GENERAL_READINGS:
        try:
            GENERAL_READINGS[key] = tuple(read())
        except InputError:
            return read()
        while len(GENERAL_READINGS) > 4:  # a few files at a time, not the suite's
            GENERAL_READINGS.popitem(last=False)
    return iter(GENERAL_READINGS[key])


GENERAL_TALLIES: dict[tuple, SemanticTally] = {}
"""What :func:`general_tally` worked out, by the file's bytes and the views asked for."""


def general_tally(path: Path, views: bool | None) -> SemanticTally:
    """Ida's counts of ``path`` read by the general reader (``first_harem=views``), worked
    out once per process for the test modules that hold Ida's fast paths to them; a
    reading or count that fails is done again each time (each reports its own error)."""
    digest = hashlib.sha256(path.read_bytes()).digest()
    key = (digest, views)
    if key not in GENERAL_TALLIES:
        lines = general_lines(digest, parse_semantic_line, lambda: iter_semantic_lines(path)[1])
        GENERAL_TALLIES[key] = tally_semantic(lines, str(path), first_harem=views)
    return GENERAL_TALLIES[key]


def emir_stage(params: EmirParams) -> Callable[[Iterable, str], Iterable]:
    """Emir with ``params`` as a stage function ``(lines, path)``."""
    return lambda lines, path: evaluate_lines(lines, params, path)


EMIR_VARIANTS = {
    "absolute": EmirParams(),
    "relative": EmirParams(relative=True),
    "weights": EmirParams(parse_weights("1;2;1;0.5", penalties=True)),
}
"""Emir's variants the fast paths are held to the general path with."""
EMIR_STAGES = {name: emir_stage(params) for name, params in EMIR_VARIANTS.items()}
"""Each variant's stage function, made once: :func:`general_written` keeps texts by it."""


def outcome(run: Callable[[], object]) -> object:
    """The result, or the error's message (both paths must fail the same way)."""
    try:
        return run()
    except InputError as error:
        return ("error", str(error))


def general_emir(veu: Path) -> Path | None:
    """The general path's Emir file of a ``.veu`` (alts, then emir), written beside it as
    ``.emir``; None when either fails on it."""
    try:
        _, lines = iter_lines(veu)
        text = written(evaluate_lines(organise_alts(lines, str(veu)), EmirParams()), ":")
    except InputError:
        return None
    emir = veu.with_suffix(".emir")
    emir.write_bytes(text.encode("latin-1"))
    return emir


# ---------------------------------------------------------------------------
# Generated files: records written in every way the readers must tell apart

# Built from a seed hypothesis draws (``seeded``): drawing each of a file's
# many choices cost hypothesis more than the checks on it.
NAMES = ["EM", "EM", "EM", "LOCAL", "PESSOA|ORGANIZACAO", "ESPURIO"]
CATEGORIES = [
    "PESSOA",
    "LOCAL",
    "ORGANIZACAO",
    "PESSOA|LOCAL",
    "ESPURIO",
    "",
    "OBRA|ESPURIO",
    "XPTO",
]
TYPES = ["INDIVIDUAL", "HUMANO", "GRUPOIND|PAIS", "", "OUTRO"]
SUBTYPES = ["PAIS", "DIVISAO", "", "OUTRO|RUA"]
TEXTS = ["Lisboa", "Rio de Janeiro", "a [b]", "d''Ávila", "x<y", "", "São Paulo", "1 = 2", "a, b"]
SPACES = [" ", " ", " ", " ", "  ", "\t"]
IDS = ["1", "2", "3", "9", "a=b"]


def random_tag(rng: random.Random) -> str:
    name = rng.choice(NAMES)
    attributes = []
    if one_in(rng, 2):
        attributes.append(("ID", rng.choice(IDS)))
    if not one_in(rng, 5):
        attributes.append(("CATEG", rng.choice(CATEGORIES)))
    if one_in(rng, 2):
        attributes.append(("TIPO", rng.choice(TYPES)))
    if one_in(rng, 2):
        attributes.append(("SUBTIPO", rng.choice(SUBTYPES)))
    if one_in(rng, 6):
        attributes.append(("CATEG", rng.choice(CATEGORIES)))  # a second CATEG: the first counts
    rng.shuffle(attributes)
    head = "".join(
        f'{rng.choice(SPACES)}{key}{" = " if one_in(rng, 10) else "="}"{value}"'
        for key, value in attributes
    )
    return f"<{name}{head}>{rng.choice(TEXTS)}</{name}>"


MARKERS = [":", "::"]
SUFFIXES = ["", "", "", "^0.5", "^0.3333333333333333", "^x"]
ITEMS = [
    "Correcto",
    "Correcto",
    "Em_Falta",
    "Espurio",
    "Parcialmente_Correcto_por_Excesso(0.5; 0.5)",
    "Parcialmente_Correcto_por_Defeito(0.3333333333333333; 0.6666666666666667)",
    "Parcialmente_Correcto_por_Defeito(x; y)",
    "Corecto",
    "(Género: M) (Número: S) (Combinada: 1)",
]


def random_record(rng: random.Random) -> str:
    gold = random_tag(rng)
    kind = rng.randint(0, 5)
    if kind == 0:
        system, count = "[null]", 1
    else:
        chosen = [random_tag(rng) for _ in range(rng.randint(1, 3))]
        if kind == 1:
            chosen = [chosen[0], chosen[0]]  # the same entity twice
        system, count = "[" + ", ".join(chosen) + "]", len(chosen)
    if one_in(rng, 13):
        count += 1  # one item too many
    items = ", ".join(rng.choices(ITEMS, k=count))
    marker, suffix = rng.choice(MARKERS), rng.choice(SUFFIXES)
    if one_in(rng, 31):
        return f"{gold} --> {system}{marker}[{items}]"
    return f"{gold} ---> {system}{marker}[{items}]{suffix}"


def records() -> st.SearchStrategy[str]:
    """Record lines of the classic and semantic shapes, and near misses."""
    return seeded(random_record)


def random_veu_file(rng: random.Random) -> str:
    lines = ["#PESSOA:LOCAL(HUMANO{PAIS,DIVISAO,RUA}):ORGANIZACAO"]
    for number in range(rng.randint(1, 4)):
        lines.append(f"DOC D{number}")
        for _ in range(rng.randint(0, 6)):
            if not one_in(rng, 4):
                lines.append(random_record(rng))
                continue
            lines.append("<ALT>")
            for alternative in range(1, rng.randint(1, 3) + 1):
                lines.append(f"<ALT{alternative}>")
                lines.extend(random_record(rng) for _ in range(rng.randint(0, 3)))
                lines.append(f"</ALT{alternative}>")
            lines.append("</ALT>")
        lines.append(rng.choice(["EOD", "", "<ALT03>"]))
    eol = rng.choice(["\n", "\n", "\r\n"])
    return eol.join(lines) + eol


def veu_files() -> st.SearchStrategy[str]:
    """``.veu`` files of a few documents of records and ALT blocks, well formed or not."""
    return seeded(random_veu_file)


# ---------------------------------------------------------------------------
# Generated files of records of a few keys (the keyed readers' cache hits)

KEYED_NAMES = ["EM", "EM", "LOCAL"]
KEYED_TEXTS = ["Lisboa", "Porto", ""]
KEYED_SUFFIXES = ["", "", "^0.5"]
VALID_ITEMS = ["Correcto", "Em_Falta", "Espurio", "Parcialmente_Correcto_por_Excesso(0.5; 0.5)"]


def keyed_tag(rng: random.Random) -> str:
    """An entity in the keyed shape: ID, CATEG, TIPO, SUBTIPO (each maybe), then others."""
    name = rng.choice(KEYED_NAMES)
    attributes = [("ID", "1")]
    for key, values in (("CATEG", CATEGORIES), ("TIPO", TYPES), ("SUBTIPO", SUBTYPES)):
        if not one_in(rng, 4):
            attributes.append((key, rng.choice(values)))
    if one_in(rng, 2):
        attributes.append(("COMENT", "x"))
    head = "".join(f' {key}="{value}"' for key, value in attributes)
    return f"<{name}{head}>{rng.choice(KEYED_TEXTS)}</{name}>"


def keyed_record(rng: random.Random) -> str:
    gold = keyed_tag(rng)
    count = rng.choice([0, 1, 1, 1, 2])
    system = "[null]" if count == 0 else "[" + ", ".join(keyed_tag(rng) for _ in range(count)) + "]"
    items = ", ".join(rng.choices(VALID_ITEMS, k=max(count, 1)))
    marker = rng.choice(MARKERS)
    return f"{gold} ---> {system}{marker}[{items}]{rng.choice(KEYED_SUFFIXES)}"


OTHER_TEXTS = ["Porto de Mós", "", "d''Ávila", "Faro"]
CLASSIC_NAMES = ["CATEG", "TIPO", "SUBTIPO"]


def random_repeated_key_file(rng: random.Random) -> str:
    """``.veu`` files of a few keyed records written again and again with other IDs and
    texts (records of one key, for the keyed readers to find what they worked out),
    some with a classic attribute dropped or moved last, another item or ALT weight
    (another key, or none)."""
    pool = [keyed_record(rng) for _ in range(rng.randint(1, 4))]
    lines = ["#PESSOA:LOCAL(HUMANO{PAIS,DIVISAO,RUA}):ORGANIZACAO"]
    for number in range(rng.randint(1, 3)):
        lines.append(f"DOC D{number}")
        for k in range(rng.randint(1, 10)):
            line = re.sub(r'ID="[^"]*"', f'ID="r{number}-{k}"', rng.choice(pool))
            if one_in(rng, 2):  # other texts: the same key
                text = rng.choice(OTHER_TEXTS)
                line = re.sub(">[^<>]*</", f">{text}</", line)
            name = rng.choice(CLASSIC_NAMES)
            change = rng.randint(0, 5)
            if change == 1:  # one classic attribute fewer: another key
                line = re.sub(f' {name}="[^"]*"', "", line, count=1)
            elif change == 2:  # written last: the same values, not in the keyed shape
                moved = f'<([^ >]+)([^>]*?)( {name}="[^"]*")([^>]*)>'
                line = re.sub(moved, r"<\1\2\4\3>", line, count=1)
            elif change == 3:  # the same entities, another first item: another key
                item = rng.choice(VALID_ITEMS)
                line = re.sub(r":\[(?:Correcto|Em_Falta|Espurio|Parcial[^],]*)", f":[{item}", line)
            elif change == 4:  # the same entities and items, another ALT weight
                line = line.removesuffix("^0.5") if line.endswith("^0.5") else line + "^0.5"
            lines.append(line)
        lines.append("EOD")
    return "\n".join(lines) + "\n"


def repeated_key_files() -> st.SearchStrategy[str]:
    """``random_repeated_key_file``: files of records of a few keys."""
    return seeded(random_repeated_key_file)
