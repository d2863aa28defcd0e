"""``harem ida X.emir|X.altrel|X.emir_relativo|X.tempo [-o OUT] [--bootstrap N]``: Ida."""

from __future__ import annotations

import argparse
import functools

from harem_pipeline.cli.names import semantic_kind_from_name
from harem_pipeline.cli.options import add_bootstrap, add_input_output
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline.ida_counts import read_tally
from harem_pipeline.pipeline.parallel import apart
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.pipeline.signature import file_signature
from harem_pipeline.text.textio import check_input_file


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``ida`` subcommand."""
    parser = subparsers.add_parser(
        "ida",
        help="global semantic report (identification and classification) of an Emir file",
        description=(
            "Count an .emir, .altrel, .emir_relativo or .tempo (harem tempo) file and write "
            "the report OUTPUT "
            "(default INPUT.ida) as the official GlobalSemanticEvaluator prints it, then a "
            "per-category table (and the First HAREM 2005 views for First HAREM files) and "
            "the signature; OUTPUT.json adds 95%% document-bootstrap intervals and the "
            "per-document counts."
        ),
    )
    add_input_output(parser, "the Emir file (.gz allowed)", "report file (default: INPUT.ida)")
    parser.add_argument(
        "--scenario",
        type=Scenario,
        choices=tuple(Scenario),
        metavar="{absolute,relative}",
        help="scenario named in the report (default: relative for .emir_relativo files)",
    )
    parser.add_argument(
        "--alt",
        type=Alt,
        choices=(Alt.STRICT, Alt.RELAXED),
        metavar="{strict,relaxed}",
        help="ALT scoring named in the report (default: relaxed for .altrel files)",
    )
    parser.add_argument("--grid", help="category grid (default: chosen from the input format)")
    parser.add_argument(
        "--first-harem-views",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="add the First HAREM 2005 views (default: for First HAREM files only)",
    )
    add_bootstrap(parser)
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the report and its JSON twin; return the exit status.

    The file is read in a process of its own (:func:`apart`) while this one
    loads the measures and the report (numpy: some 60 ms, half a small
    file's reading), so :mod:`harem_pipeline.pipeline.ida` is imported here,
    once the reading has started: ``pipeline.ida.run_ida`` in two steps.
    """
    check_input_file(args.input)
    scenario, alt = semantic_kind_from_name(args.input)
    scenario, alt = args.scenario or scenario, args.alt or alt
    params = ReportParams(
        scenario=scenario, evaluation=None, alt=alt, bootstrap=max(args.bootstrap, 0)
    )
    signature = file_signature(args.input, params)
    counted = apart(functools.partial(read_tally, args.input, args.grid, args.first_harem_views))
    from harem_pipeline.pipeline.ida import write_ida  # while the file is read (docstring)

    write_ida(args.input, counted(), params, str(signature), args.output)
    return 0
