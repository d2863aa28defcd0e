"""Veils: which categories, types and subtypes an evaluation looks at.

A *veil* (``véu``) names the part of the category grid an evaluation keeps.
Its syntax is the one of the Second HAREM tools::

    *                                   everything in the grid
    PESSOA:LOCAL:ORGANIZACAO            three categories, types ignored
    LOCAL(FISICO{*};HUMANO{PAIS,RUA})   category, types, subtypes
    PESSOA(*)                           a category with all its types

Categories are separated by ``:``, types (inside ``( )``) by ``;``,
subtypes (inside ``{ }``) by ``,``; ``*`` at any level means "all of the
grid's".  Names are upper-cased first, as the original tools did with their
command-line arguments, and ``#`` characters are dropped so that the header
line of a ``.veu`` file can be given back as a veil.

The grid and the veil themselves are :class:`harem_pipeline.model.Grid` and
:class:`~harem_pipeline.model.Veil`; this module reads and writes them.
The grid is read from ``harem.conf`` (``C:``/``T:``/``S:`` lines).
Like the original reader, every category gets a type ``OUTRO`` and every
type a subtype ``OUTRO``, and a category ``OUTRO`` (with no types) always
exists.

The textual form of a veil (the first line of a ``.veu`` file) lists
categories and types in alphabetical order, and subtypes in the iteration
order of a Java ``HashSet`` of strings: that order is reproduced here so the
header is byte-identical to the original one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.model import EVERYTHING, OTHER, Grid, Tree, Veil
from harem_pipeline.text import PathLike
from harem_pipeline.text.java import java_hash_order
from harem_pipeline.text.textio import read_text

# The grid shipped inside the package (LÂMPADA 2.0 ``harem.conf``), so an
# installed package finds it too.
DEFAULT_GRID_PATH = Path(__file__).resolve().parents[1] / "resources" / "harem.conf"
# The First HAREM (2005) grid, as its guidelines define it (every category and type of
# the First HAREM golden collection is in it).
GRID_2005_PATH = DEFAULT_GRID_PATH.with_name("harem2005.conf")

# --------------------------------------------------------------------------
# Trees of categories, types and subtypes.


class _TreeBuilder:
    """Mutable helper that mirrors the original insertion semantics."""

    def __init__(self) -> None:
        self.cats: dict[str, dict[str, list[str]]] = {}

    def add_category(self, cat: str) -> None:
        self.cats.setdefault(cat, {})

    def add_type(self, cat: str, typ: str) -> None:
        self.cats.setdefault(cat, {}).setdefault(typ, [])

    def add_subtype(self, cat: str, typ: str, sub: str) -> None:
        subs = self.cats.setdefault(cat, {}).setdefault(typ, [])
        if sub not in subs:
            subs.append(sub)

    def fill_with_other(self) -> None:
        """Give every category a type OUTRO and every type a subtype OUTRO."""
        self.add_category(OTHER)
        for cat, types in self.cats.items():
            if cat != OTHER and OTHER not in types:
                types[OTHER] = []
            for typ, subs in types.items():
                if typ != OTHER and OTHER not in subs:
                    subs.append(OTHER)

    def freeze(self) -> Tree:
        return tuple(
            (cat, tuple((typ, tuple(subs)) for typ, subs in sorted(types.items())))
            for cat, types in sorted(self.cats.items())
        )


def format_veil(veil: Veil) -> str:
    """The expanded textual form of a veil, as the ``#`` header of a ``.veu`` file."""
    parts = []
    for cat, types in veil.tree:
        text = cat
        if types:
            rendered = []
            for typ, subs in types:
                if subs:
                    typ += "{" + ",".join(java_hash_order(subs)) + "}"
                rendered.append(typ)
            text += "(" + ";".join(rendered) + ")"
        parts.append(text)
    return ":".join(parts)


def _split_top(text: str, separator: str) -> list[str]:
    """``text`` split on ``separator`` outside parentheses and braces."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [part for part in parts if part]


def veil_in_words(text: str | None) -> str:
    """A veil as a report says it: ``todas as categorias``, or the categories with the
    types (and subtypes) they keep: ``PESSOA, LOCAL (tipos HUMANO {PAIS}, FISICO)``."""
    if text is None or text.strip() in ("", EVERYTHING):
        return "todas as categorias"
    words = []
    for category in _split_top(text.strip(), ":"):
        name, _, types = category.partition("(")
        if not types:
            words.append(name)
            continue
        kept = []
        for typ in _split_top(types.rstrip(")"), ";"):
            tname, _, subs = typ.partition("{")
            kept.append(f"{tname} {{{', '.join(subs.rstrip('}').split(','))}}}" if subs else tname)
        words.append(f"{name} (tipos {', '.join(kept)})")
    return "categorias " + ", ".join(words)


# --------------------------------------------------------------------------
# harem.conf


DeclaredGrid = dict[str, dict[str, tuple[str, ...]]]
"""A grid as its file declares it: categories, their types and the types' subtypes, in
the file's order, without the ``OUTRO`` entries the reader adds."""


def declared_grid(lines: Iterable[str], path: str | None = None) -> DeclaredGrid:
    """Read the ``C:``/``T:``/``S:`` lines of a ``harem.conf``, in the file's order.

    As in the original reader, ``#`` lines are comments, the first empty line
    ends the file, and relation (``R:``), temporal reference (``X:``) and
    direction (``Y:``) lines are not part of the grid.
    """
    declared: dict[str, dict[str, list[str]]] = {}
    cat: str | None = None
    typ: str | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if line == "":
            break
        if line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep or not value or key not in {"C", "T", "S", "R", "X", "Y"}:
            raise InputError(
                path, "a grid line C:, T:, S:, R:, X: or Y: with a value", line, line=number
            )
        if key == "C":
            cat, typ = value, None
            declared.setdefault(cat, {})
        elif key == "T":
            if cat is None:
                raise InputError(path, "a C: line before the first T: line", line, line=number)
            typ = value
            declared[cat].setdefault(typ, [])
        elif key == "S":
            if cat is None or typ is None:
                raise InputError(path, "a T: line before the first S: line", line, line=number)
            subs = declared[cat][typ]
            if value not in subs:
                subs.append(value)
    if not declared:
        raise InputError(path, "at least one C: category line", "none")
    return {c: {t: tuple(s) for t, s in types.items()} for c, types in declared.items()}


def parse_grid(lines: Iterable[str], path: str | None = None) -> Grid:
    """The grid of a ``harem.conf`` (``declared_grid``), every category given a type
    ``OUTRO`` and every type a subtype ``OUTRO``, as the original reader fills it."""
    builder = _TreeBuilder()
    for cat, types in declared_grid(lines, path).items():
        builder.add_category(cat)
        for typ, subs in types.items():
            builder.add_type(cat, typ)
            for sub in subs:
                builder.add_subtype(cat, typ, sub)
    builder.fill_with_other()
    return Grid(builder.freeze(), path)


def read_declared_grid(path: PathLike | None = None) -> DeclaredGrid:
    """A ``harem.conf`` as declared (``declared_grid``); ``None``: the shipped one."""
    target = DEFAULT_GRID_PATH if path is None else Path(path)
    return declared_grid(read_text(target).text.splitlines(), str(target))


def read_grid(path: PathLike | None = None) -> Grid:
    """Read a ``harem.conf`` grid; ``None`` means the grid shipped with the project."""
    target = DEFAULT_GRID_PATH if path is None else Path(path)
    return parse_grid(read_text(target).text.splitlines(), str(target))


# --------------------------------------------------------------------------
# Veil syntax


class _VeilParser:
    """Recursive-descent reader of the veil syntax; errors give the position."""

    def __init__(self, text: str, grid: Grid, source: str | None) -> None:
        self.text = text
        self.grid = grid
        self.source = source
        self.pos = 0
        self.builder = _TreeBuilder()

    def fail(self, expected: str) -> InputError:
        if self.pos < len(self.text):
            found = f"{self.text[self.pos]!r} at position {self.pos + 1} of {self.text!r}"
        else:
            found = f"end of veil at position {self.pos + 1} of {self.text!r}"
        return InputError(self.source, expected, found)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.fail(f"'{char}' in the veil")
        self.pos += 1

    def name(self, what: str) -> tuple[str, int]:
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_-"
        ):
            self.pos += 1
        if self.pos == start:
            raise self.fail(f"a {what} name in the veil")
        return self.text[start : self.pos], start

    def unknown(self, what: str, name: str, start: int, valid: Sequence[str]) -> InputError:
        listed = ", ".join(valid) if valid else "none"
        return InputError(
            self.source,
            f"a {what} of the grid ({listed})",
            f"unknown {what} {name!r} at position {start + 1} of {self.text!r}",
        )

    def parse(self) -> Tree:
        self.category()
        while self.peek() == ":":
            self.pos += 1
            self.category()
        if self.pos != len(self.text):
            raise self.fail("':' or the end of the veil")
        return self.builder.freeze()

    def category(self) -> None:
        cat, start = self.name("category")
        if cat not in self.grid.categories:
            raise self.unknown("category", cat, start, self.grid.categories)
        self.builder.add_category(cat)
        if self.peek() != "(":
            return
        self.pos += 1
        if self.peek() == EVERYTHING:
            self.pos += 1
            for typ in self.grid.types(cat):
                self.builder.add_type(cat, typ)
                for sub in java_hash_order(self.grid.subtypes(cat, typ)):
                    self.builder.add_subtype(cat, typ, sub)
        else:
            self.type(cat)
            while self.peek() == ";":
                self.pos += 1
                self.type(cat)
        self.expect(")")

    def type(self, cat: str) -> None:
        typ, start = self.name("type")
        if typ not in self.grid.types(cat):
            raise self.unknown(f"type of {cat}", typ, start, self.grid.types(cat))
        self.builder.add_type(cat, typ)
        if self.peek() != "{":
            return
        self.pos += 1
        if self.peek() == EVERYTHING:
            self.pos += 1
            for sub in java_hash_order(self.grid.subtypes(cat, typ)):
                self.builder.add_subtype(cat, typ, sub)
        else:
            self.subtype(cat, typ)
            while self.peek() == ",":
                self.pos += 1
                self.subtype(cat, typ)
        self.expect("}")

    def subtype(self, cat: str, typ: str) -> None:
        sub, start = self.name("subtype")
        valid = self.grid.subtypes(cat, typ)
        if sub not in valid:
            raise self.unknown(f"subtype of {cat}({typ})", sub, start, valid)
        self.builder.add_subtype(cat, typ, sub)


def parse_veil(text: str | None, grid: Grid, source: str | None = "veil") -> Veil:
    """Parse a veil against ``grid``; ``None`` and ``*`` keep everything.

    Unknown names are refused (the error names the name and lists the valid
    ones), and so is malformed syntax (the error gives the 1-based position).
    """
    if text is None:
        return Veil(grid.tree, everything=True)
    cleaned = text.replace("#", "").strip().upper()
    if cleaned == EVERYTHING:
        return Veil(grid.tree, everything=True)
    return Veil(_VeilParser(cleaned, grid, source).parse())
