"""The library's layers: a module imports only from its own layer or below.

From the bottom (see docs/ARCHITECTURE.md): text rules → the document model
and file formats → stages (records in, records or counts out) → measures
(counts → figures) → reports (render only) → tools → pipeline I/O → cli.
The Luigi layer (``tasks/``) sits on top and may import anything.  The
package's ``__init__`` imports ``tasks`` only when Luigi is already running,
so that one import is not a layer's.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "harem_pipeline"

LAYERS = (
    ("harem_pipeline", "harem_pipeline.errors"),
    ("harem_pipeline.text",),
    ("harem_pipeline.model", "harem_pipeline.resources"),
    ("harem_pipeline.formats",),
    ("harem_pipeline.stages",),
    ("harem_pipeline.measures",),
    ("harem_pipeline.reports",),
    ("harem_pipeline.tools",),
    ("harem_pipeline.pipeline",),
    ("harem_pipeline.api",),
    ("harem_pipeline.cli", "harem_pipeline.__main__"),
)
"""Layers from the bottom; each tuple holds module or package names of one layer."""

TOP_LEVEL_LIMIT = 5
"""Modules at the package's top level: ``__init__``, ``__main__``, ``errors``, ``model``,
``api``."""

EXPORTED = {("harem_pipeline", "harem_pipeline.api")}
"""The one upward import allowed: the package's ``__init__`` exports ``evaluate`` and
``span_measures`` from ``api`` (lazily, in ``__getattr__``)."""


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` of the deepest name that ``module`` is or lies under."""
    best, depth = -1, -1
    for index, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and name.count(".") > depth:
                best, depth = index, name.count(".")
    if best < 0:
        raise ValueError(f"{module} is in no layer")
    return best


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every ``harem_pipeline`` import of a file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # ``from harem_pipeline.stages import ida2id`` imports a module too
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "harem_pipeline"]


def library_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def violations() -> list[str]:
    found = []
    for path in library_files():
        here = module_name(path)
        for line, name in imported_modules(path):
            if not is_module(name) or name == here:
                continue
            if layer_of(name) > layer_of(here) and (here, name) not in EXPORTED:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {here} imports {name}")
    return found


def test_every_module_is_in_a_layer() -> None:
    for path in library_files():
        layer_of(module_name(path))


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    assert violations() == []


def test_the_top_level_holds_a_handful_of_modules() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= TOP_LEVEL_LIMIT, top


def module_names(path: Path) -> list[str]:
    """Every module a file imports absolutely (``import X``, ``from X import …``)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_the_library_never_imports_luigi_or_the_task_layer_outside_its_hook() -> None:
    for path in library_files():
        for name in module_names(path):
            if name.split(".")[0] in ("luigi", "tasks"):
                # the package hook, and ``harem run`` (the CLI drives Luigi)
                allowed = path == PACKAGE / "__init__.py" or path.parent == PACKAGE / "cli"
                assert allowed, f"{path}: imports {name}"


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("harem_pipeline.text.textio", 1),
        ("harem_pipeline.model", 2),
        ("harem_pipeline.stages.align", 4),
        ("harem_pipeline.api", 9),
        ("harem_pipeline.cli.run", 10),
        ("harem_pipeline.__main__", 10),
    ],
)
def test_layer_of_names_the_deepest_layer(module: str, expected: int) -> None:
    assert layer_of(module) == expected


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("from harem_pipeline.reports.ida2id import LABELS\n", encoding="utf-8")
    assert imported_modules(sample) == [
        (1, "harem_pipeline.reports.ida2id"),
        (1, "harem_pipeline.reports.ida2id.LABELS"),
    ]
    assert layer_of("harem_pipeline.reports.ida2id") > layer_of("harem_pipeline.stages.ida2id")


def test_no_test_module_imports_another() -> None:
    """Shared test code lives in ``tests/helpers`` or ``conftest.py``, so that a test
    module runs the same alone or beside the others, and moves without breaking them."""
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        for name in module_names(path):
            assert not name.startswith("tests.test_"), f"{path.name} imports {name}"


def test_shared_test_code_is_in_helpers_or_conftest() -> None:
    """Beside the test modules, ``tests/`` holds only ``conftest.py``: a helper module there
    would be imported by its bare name, found only when pytest puts ``tests/`` on the path."""
    loose = [
        path.name
        for path in Path(__file__).parent.glob("*.py")
        if not path.name.startswith("test_") and path.name != "conftest.py"
    ]
    assert loose == []
