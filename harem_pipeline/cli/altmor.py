"""``harem altmor FILE.vizir [-o OUT]``: keep the best CD alternative of each ALT block."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_input_output
from harem_pipeline.pipeline.morphology import run_altmor


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "altmor",
        help="AltinaMor: replace each <ALT> block of a .vizir file by its best alternative",
        description=(
            "Score every alternative of each <ALT> block on the Combinada field (add-one "
            "smoothed F) and keep the best one, after a '# ALT escolhida: k de n' line."
        ),
    )
    add_input_output(parser, "a Vizir output", "output file (default FILE.altmor)", "FILE.vizir")
    parser.set_defaults(func=altmor_command)


def altmor_command(args: argparse.Namespace) -> int:
    run_altmor(args.input, args.output)
    return 0
