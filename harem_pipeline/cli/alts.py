"""``harem alts X.veu [-o OUT]``: the ALT organiser (weights ``^1/n`` on ALT records)."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_file_step
from harem_pipeline.pipeline.semantic import run_alts


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``alts`` subcommand."""
    add_file_step(
        subparsers,
        "alts",
        "organise the <ALT> blocks of a Véus file and weight their records (.alts)",
        (
            "Read a Véus output X.veu and write X.veu.alts as the official AltAlignmentOrganizer "
            "does: alternatives with the same gold segmentation merged, empty ones dropped, "
            "every record of an alternative ending in ^1/n, the block's spurious system "
            "entities after the last alternative."
        ),
        ("the Véus file (.veu, .gz allowed)", "output file (default: INPUT.alts)"),
        run_alts,
    )
