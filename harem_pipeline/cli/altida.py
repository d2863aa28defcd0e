"""``harem altida IN [-o OUT]``: keep the best alternative of every ALT block."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_file_step
from harem_pipeline.pipeline.identification import run_altida


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``altida`` subcommand."""
    add_file_step(
        subparsers,
        "altida",
        "choose, per <ALT> block of an evaluated file, the alternative that suits the run",
        (
            "Read an evaluated alignment file (.avalida or a Véus subset of it) and write it "
            "with every <ALT> block replaced by its best alternative (smoothed F, then "
            "combined error, then more records, then the later one), preceded by "
            "'# ALT escolhida: k de n'."
        ),
        ("the evaluated alignment file", "output file (default: INPUT.altida)"),
        run_altida,
    )
