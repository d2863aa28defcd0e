"""``harem ida2id IN [-o OUT]``: the First HAREM identification report and its JSON twin."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.names import subset_from_name
from harem_pipeline.cli.options import add_bootstrap, add_input_output
from harem_pipeline.pipeline.ida2id import run_ida2id
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.pipeline.signature import file_signature
from harem_pipeline.stages.veus import STYLES
from harem_pipeline.text.textio import check_input_file


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``ida2id`` subcommand."""
    parser = subparsers.add_parser(
        "ida2id",
        help="identification measures (Precisão, Abrangência, Medida F, …) of an evaluated file",
        description=(
            "Count an evaluated alignment file (.altida, or .avalida for the figures of the "
            "official .globalid, which selects no ALT) and write the report OUTPUT and its "
            "JSON twin OUTPUT.json, which adds 95% document-bootstrap intervals (ci95) of "
            "Precisão, Abrangência and Medida F and the per-document counts (documents)."
        ),
    )
    add_input_output(parser, "the evaluated alignment file", "report file (default: INPUT.ida2id)")
    parser.add_argument(
        "--subset", help="subset named in the signature (default: from the file name, or total)"
    )
    parser.add_argument(
        "--style",
        default="harem",
        choices=STYLES,
        help="the Véus style the file was cut in, named in the signature (default harem)",
    )
    parser.add_argument(
        "--veil",
        default="*",
        help="evaluation veil the file was made with, named in the signature (default '*')",
    )
    add_bootstrap(parser, zero="none, ci95 is null")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the report and its JSON twin; return the exit status."""
    check_input_file(args.input)
    params = ReportParams(
        subset=args.subset or subset_from_name(args.input),
        evaluation=SubsetParams(style=args.style, veil=args.veil),
        bootstrap=max(args.bootstrap, 0),
    )
    signature = file_signature(args.input, params)
    run_ida2id(args.input, params, str(signature), args.output)
    return 0
