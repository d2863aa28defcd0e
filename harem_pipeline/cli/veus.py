"""``harem veus IN --style S [--veil V] [--system-veil V] [--variant V] [--genre G] [-o OUT]``."""

from __future__ import annotations

import argparse

from harem_pipeline.errors import InputError
from harem_pipeline.model import EVERYTHING
from harem_pipeline.pipeline.identification import run_veus
from harem_pipeline.pipeline.params import SubsetParams
from harem_pipeline.stages.veus import STYLES


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``veus`` subcommand."""
    parser = subparsers.add_parser(
        "veus",
        help="cut an .avalida file into an evaluation subset (veil, variant, genre, style)",
        description=(
            "Read an AvalIDa .avalida file (.gz allowed) and write the subset chosen by a veil "
            "of categories and by document variant/genre, in the harem, muc or relaxado style, "
            "as the HAREM Véus does. Veil syntax: CAT1(TYPE1{SUB1,SUB2};TYPE2):CAT2, '*' = all."
        ),
    )
    parser.add_argument("input", help="the .avalida file")
    parser.add_argument("--style", required=True, choices=STYLES, help="evaluation style")
    parser.add_argument("--veil", help="evaluation veil (default: '*', everything)")
    parser.add_argument(
        "--system-veil", help="the veil the run declared it handles (default: everything)"
    )
    parser.add_argument(
        "--selective",
        action="store_true",
        help="evaluate with the system's declared veil (the 'selectivo' scenario)",
    )
    parser.add_argument("--variant", help="keep only documents of this variant (pt, br, ...)")
    parser.add_argument(
        "--genre", help="keep only documents of this genre (jornalistico, web, ...)"
    )
    parser.add_argument("--grid", help="category grid harem.conf (default: the shipped one)")
    parser.add_argument(
        "--meta",
        help="colSegundoHAREM-meta.xml, needed for --variant/--genre on 'DOC id' files",
    )
    parser.add_argument(
        "-o", "--output", help="output file (default: INPUT.total, INPUT.pt.jornalistico, ...)"
    )
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the subset; return the exit status."""
    if args.selective and args.veil is not None:
        raise InputError(None, "either --veil or --selective", "both")
    params = SubsetParams(
        style=args.style,
        veil=args.veil or EVERYTHING,
        system_veil=args.system_veil,
        variant=args.variant,
        genre=args.genre,
        selective=args.selective,
    )
    run_veus(args.input, params, args.output, grid_path=args.grid, meta_path=args.meta)
    return 0
