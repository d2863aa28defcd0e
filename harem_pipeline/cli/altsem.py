"""``harem altsem X.emir [-o OUT]``: ALTina, the relaxed ALT choice."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_input_output
from harem_pipeline.pipeline.semantic import run_altsem


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``altsem`` subcommand."""
    parser = subparsers.add_parser(
        "altsem",
        help="keep the best alternative of every <ALT> block of an .emir file (.altrel)",
        description=(
            "Read an .emir file and write X.emir.altrel as the official "
            "SemanticAltAlignmentSelector does: per <ALT> block the alternative with the "
            "highest smoothed F of the CSC, its PALT reset to 1."
        ),
    )
    add_input_output(parser, "the .emir file (.gz allowed)", "output file (default: INPUT.altrel)")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the relaxed file; return the exit status."""
    run_altsem(args.input, args.output)
    return 0
