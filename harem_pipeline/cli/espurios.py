"""``harem espurios X.alts [-o OUT]``: the list of the system entities left spurious."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_input_output
from harem_pipeline.pipeline.semantic import run_espurios


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``espurios`` subcommand."""
    parser = subparsers.add_parser(
        "espurios",
        help="list, per document, the spurious system entities of an .alts file",
        description=(
            "Read an .alts file and write X.alts.espurios as the official "
            "SpuriousAlignmentsCollector does: the Véus header, then per document a blank "
            "line, its DOC line and one [entity] line per spurious record."
        ),
    )
    add_input_output(
        parser, "the .alts file (.gz allowed)", "output file (default: INPUT.espurios)"
    )
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the spurious list; return the exit status."""
    run_espurios(args.input, args.output)
    return 0
