"""``harem altsem X.emir [-o OUT]``: ALTina, the relaxed ALT choice."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_file_step
from harem_pipeline.pipeline.semantic import run_altsem


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``altsem`` subcommand."""
    add_file_step(
        subparsers,
        "altsem",
        "keep the best alternative of every <ALT> block of an .emir file (.altrel)",
        (
            "Read an .emir file and write X.emir.altrel as the official "
            "SemanticAltAlignmentSelector does: per <ALT> block the alternative with the "
            "highest smoothed F of the CSC, its PALT reset to 1."
        ),
        ("the .emir file (.gz allowed)", "output file (default: INPUT.altrel)"),
        run_altsem,
    )
