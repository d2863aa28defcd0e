"""``harem altida IN [-o OUT]``: keep the best alternative of every ALT block."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_input_output
from harem_pipeline.pipeline.identification import run_altida


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``altida`` subcommand."""
    parser = subparsers.add_parser(
        "altida",
        help="choose, per <ALT> block of an evaluated file, the alternative that suits the run",
        description=(
            "Read an evaluated alignment file (.avalida or a Véus subset of it) and write it "
            "with every <ALT> block replaced by its best alternative (smoothed F, then "
            "combined error, then more records, then the later one), preceded by "
            "'# ALT escolhida: k de n'."
        ),
    )
    add_input_output(parser, "the evaluated alignment file", "output file (default: INPUT.altida)")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the file with alternatives chosen; return the exit status."""
    run_altida(args.input, args.output)
    return 0
