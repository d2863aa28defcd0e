"""Helpers of the semantic-chain tests: reading reference files and comparing lines,
running a stage two ways, and generated record files."""

from __future__ import annotations

import difflib
import gzip
import random
from collections.abc import Iterable
from pathlib import Path

from hypothesis import strategies as st

from harem_pipeline.formats.alinhado import Line, format_line, parse_lines
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


SAMPLE = ("exemplo1/total_harem", "gabriel/cenario4_categs_muc", "simulated/mini1_PLO_muc")
"""A sample of the reference inputs, one of each source: a worked example, the real Second
HAREM run (in its categories scenario) and a simulated First HAREM run."""


def sampled(paths: list[Path]) -> list[Path]:
    """The files of ``paths`` from an input of :data:`SAMPLE`."""
    return [p for p in paths if f"{p.parent.name}/{p.name.partition('.')[0]}" in SAMPLE]


def written(items: Iterable[Line | str], marker: str | None) -> str:
    """What the step writes of a stage's output (texts as they are)."""
    return "".join(
        item if isinstance(item, str) else format_line(item, marker) + item.eol for item in items
    )


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
