"""``harem espurios X.alts [-o OUT]``: the list of the system entities left spurious."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_file_step
from harem_pipeline.pipeline.semantic import run_espurios


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``espurios`` subcommand."""
    add_file_step(
        subparsers,
        "espurios",
        "list, per document, the spurious system entities of an .alts file",
        (
            "Read an .alts file and write X.alts.espurios as the official "
            "SpuriousAlignmentsCollector does: the Véus header, then per document a blank "
            "line, its DOC line and one [entity] line per spurious record."
        ),
        ("the .alts file (.gz allowed)", "output file (default: INPUT.espurios)"),
        run_espurios,
    )
