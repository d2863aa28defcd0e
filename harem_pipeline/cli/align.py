"""``harem align --cd CD --run RUN [-o OUT]``: AlinhEM, a run aligned with the CD."""

from __future__ import annotations

import argparse

from harem_pipeline.cli import say
from harem_pipeline.pipeline.align import run_align


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``align`` subcommand."""
    parser = subparsers.add_parser(
        "align",
        help="align a system run with the golden collection (AlinhEM) into a .alinhado file",
        description=(
            "Read the golden collection and a system run (First or Second HAREM format, .gz "
            "allowed), pair their documents by DOCID and write one record per golden entity "
            "(GOLD ---> [SYS, ...] or [null]) plus one per spurious system entity, as the "
            "official AlinhEM does. Warnings (documents missing on either side) go to stderr. "
            "The output is written in the collection's encoding."
        ),
    )
    parser.add_argument("--cd", required=True, help="the golden collection (CD)")
    parser.add_argument("--run", required=True, help="the system run (participation)")
    parser.add_argument("-o", "--output", help="output file (default: RUN.alinhado)")
    parser.add_argument(
        "--show-tokens",
        action="store_true",
        help=(
            "write every entity with the occurrence numbers of its markable tokens "
            "(<EM ...><1>Vila</1> <1>Real</1></EM>), as the official Aligner's "
            "'-etiquetas sim' does: the same records, showing why entities were aligned"
        ),
    )
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Align, print the warnings, write the records; return the exit status."""
    _, result = run_align(args.cd, args.run, args.output, show_tokens=args.show_tokens)
    for warning in result.warnings:
        say(warning)
    return 0
