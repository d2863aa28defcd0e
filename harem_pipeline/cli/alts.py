"""``harem alts X.veu [-o OUT]``: the ALT organiser (weights ``^1/n`` on ALT records)."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_input_output
from harem_pipeline.pipeline.semantic import run_alts


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``alts`` subcommand."""
    parser = subparsers.add_parser(
        "alts",
        help="organise the <ALT> blocks of a Véus file and weight their records (.alts)",
        description=(
            "Read a Véus output X.veu and write X.veu.alts as the official AltAlignmentOrganizer "
            "does: alternatives with the same gold segmentation merged, empty ones dropped, "
            "every record of an alternative ending in ^1/n, the block's spurious system "
            "entities after the last alternative."
        ),
    )
    add_input_output(
        parser, "the Véus file (.veu, .gz allowed)", "output file (default: INPUT.alts)"
    )
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the organised file; return the exit status."""
    run_alts(args.input, args.output)
    return 0
