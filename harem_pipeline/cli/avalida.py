"""``harem avalida IN [-o OUT]``: judge the identification of every aligned entity."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_input_output
from harem_pipeline.pipeline.identification import run_avalida


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``avalida`` subcommand."""
    parser = subparsers.add_parser(
        "avalida",
        help="evaluate an .alinhado file (Correcto, Parcialmente_Correcto_…, Em_Falta, Espurio)",
        description=(
            "Read an AlinhEM .alinhado file (.gz allowed) and write it with an identification "
            "evaluation after every record, as the HAREM AvalIDa does."
        ),
    )
    add_input_output(parser, "the .alinhado file", "output file (default: INPUT.avalida)")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the evaluated file; return the exit status."""
    run_avalida(args.input, args.output)
    return 0
