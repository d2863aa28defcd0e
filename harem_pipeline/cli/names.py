"""What a HAREM file name tells: a command's fallback, and nothing below the commands.

The pipeline names its files as the original tools did
(``run.alinhado.avalida.<subset>.abs.vizir``); outside a campaign a report
still wants its run, subset and scenario, and when neither the options nor
the file say them, a command reads them from the name here.  The library
never guesses from a name: the scenario travels in the files that have one.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from harem_pipeline.model import Alt, Scenario
from harem_pipeline.text import PathLike

_STAGE_PARTS = frozenset(
    {"abs", "rel", "absolute", "relative", "vizir", "altmor", "ida2mor", "altida", "ida2id", "gz"}
)


def subset_from_name(path: PathLike, default: str | None = "total") -> str | None:
    """The Véus subset a file name carries after ``.avalida.`` (``default`` when none).

    ``run.alinhado.avalida.pt.web.altida`` → ``pt.web``;
    ``run.alinhado.avalida.total.abs.altmor`` → ``total``;
    ``run.alinhado.avalida`` → ``default``.
    """
    parts = Path(path).name.split(".")
    if "avalida" not in parts:
        return default
    rest = parts[parts.index("avalida") + 1 :]
    kept = list(itertools.takewhile(lambda p: p not in _STAGE_PARTS, rest))
    return ".".join(kept) or default


def scenario_from_name(path: PathLike) -> Scenario | None:
    """``abs``/``rel`` (or ``absolute``/``relative``) as a dot-separated part of the name
    (``harem ida2mor``'s fallback for a file without the ``# Cenário:`` header)."""
    found = None
    for part in Path(path).name.split("."):
        try:
            found = Scenario.parse(part)
        except ValueError:
            continue
    return found


def run_from_name(path: PathLike) -> str:
    """The run's name: what precedes ``.alinhado`` (else the name up to its first dot)."""
    name = Path(path).name
    return name.split(".alinhado", 1)[0] if ".alinhado" in name else name.split(".", 1)[0]


def semantic_kind_from_name(path: PathLike) -> tuple[Scenario, Alt]:
    """``(scenario, alt)`` an Emir file's name says: ``emir_relativo`` is relative, ``altrel``
    relaxed (what ``harem ida`` names in a report when not told; the file does not say)."""
    name = Path(path).name
    scenario = Scenario.RELATIVE if "emir_relativo" in name else Scenario.ABSOLUTE
    return scenario, Alt.RELAXED if ".altrel" in name else Alt.STRICT
