"""``harem ida2mor FILE.altmor [-o OUT]``: the morphological classification report."""

from __future__ import annotations

import argparse
from dataclasses import replace

from harem_pipeline.cli.options import resamples
from harem_pipeline.errors import InputError
from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES
from harem_pipeline.model import Scenario
from harem_pipeline.pipeline.morphology import read_scenario, run_ida2mor
from harem_pipeline.pipeline.naming import run_from_name, scenario_from_name, subset_from_name
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.pipeline.signature import file_signature
from harem_pipeline.text.textio import check_input_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ida2mor",
        help="Ida2Mor: counts and measures of the morphological classification",
        description=(
            "Write the Portuguese report (OUT, default FILE.ida2mor) and its JSON twin "
            "(OUT.json) for an AltinaMor output. The scenario is read from the file's "
            "'# Cenário:' line (Vizir writes it), else from its name; run and subset "
            "from the file name when not given."
        ),
    )
    parser.add_argument("input", metavar="FILE.altmor", help="an AltinaMor output")
    parser.add_argument("-o", "--output", help="text report (default FILE.ida2mor)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-abs",
        dest="scenario",
        action="store_const",
        const=Scenario.ABSOLUTE,
        help="the file was scored in the absolute scenario (overrides the file's header)",
    )
    group.add_argument(
        "-rel",
        dest="scenario",
        action="store_const",
        const=Scenario.RELATIVE,
        help="the file was scored in the relative scenario (overrides the file's header)",
    )
    group.add_argument(
        "--scenario", dest="scenario", type=Scenario.parse, metavar="absolute|relative",
        help="the Vizir scenario the file was scored in (default: the file's "
        "'# Cenário:' line, else .abs/.rel in its name)",
    )  # fmt: skip
    parser.add_argument("--run", help="run name shown in the report (default: from the name)")
    parser.add_argument("--subset", help="subset shown in the report (default: from the name)")
    parser.add_argument("--signature", help="signature line to print (default: computed)")
    parser.add_argument(
        "--bootstrap",
        type=resamples(),
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"resamples of the document bootstrap giving each field's ci95 in the JSON "
        f"(default {DEFAULT_RESAMPLES}; 0: none, ci95 is null)",
    )
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the report and its JSON twin; return the exit status."""
    check_input_file(args.input)
    scenario = args.scenario or read_scenario(args.input) or scenario_from_name(args.input)
    if scenario is None:
        raise InputError(
            args.input,
            "a scenario (a '# Cenário:' line, .abs/.rel in the name, or -abs/-rel)",
            "none",
        )
    run = args.run or run_from_name(args.input)
    params = ReportParams(
        subset=args.subset or subset_from_name(args.input, default=None),
        scenario=scenario,
        evaluation=SubsetParams(style="harem"),
        bootstrap=max(args.bootstrap, 0),
    )
    signature = args.signature or file_signature(args.input, params).format()
    # the file's veil is not known: the report names none (evaluation None)
    run_ida2mor(args.input, replace(params, evaluation=None), signature, args.output, run)
    return 0
