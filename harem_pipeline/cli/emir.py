"""``harem emir X.alts [--relative] [--weights W] [--no-penalties] [--grid F] [-o OUT]``."""

from __future__ import annotations

import argparse

from harem_pipeline.pipeline.semantic import run_emir
from harem_pipeline.stages.emir import EmirParams, parse_weights


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``emir`` subcommand."""
    parser = subparsers.add_parser(
        "emir",
        help="score the semantic classification (CSC) of every aligned pair of an .alts file",
        description=(
            "Read an .alts file and write X.alts.emir (X.alts.emir_relativo with --relative) "
            "as the official SemanticAlignmentEvaluator does: per aligned system entity, the "
            "correct, spurious and missing categories, types and subtypes inside the veil of "
            "the Véus header, MaxCSC_CD, MaxCSC_S, CSC, Peso and PALT.  The grid is "
            "harem.conf, or the First HAREM (2005) grid for First HAREM files (entities "
            "written <CATEG TIPO=...>, or First HAREM document lines)."
        ),
    )
    parser.add_argument("input", help="the .alts file (.gz allowed)")
    parser.add_argument(
        "--relative",
        action="store_true",
        help="relative scenario: leave out missing and spurious records (-relativo sim)",
    )
    parser.add_argument(
        "--weights",
        metavar="ID;A;B;G",
        help="weights of identification, category, type and subtype (default 1;1;0.5;0.25)",
    )
    penalties = parser.add_mutually_exclusive_group()
    penalties.add_argument(
        "--no-penalties",
        dest="penalties",
        action="store_false",
        help="do not subtract penalties for spurious categories, types and subtypes (the "
        "default: the official program never subtracts them, whatever -penalizacoes says)",
    )
    penalties.add_argument(
        "--penalties",
        dest="penalties",
        action="store_true",
        help="subtract them, as the documented formula says",
    )
    parser.set_defaults(penalties=False)
    parser.add_argument("--grid", help="category grid (default: chosen from the input format)")
    parser.add_argument("-o", "--output", help="output file (default: INPUT.emir)")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the scored file; return the exit status."""
    params = EmirParams(parse_weights(args.weights, args.penalties), args.relative, args.grid)
    run_emir(args.input, params, args.output)
    return 0
