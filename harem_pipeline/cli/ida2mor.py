"""``harem ida2mor FILE.altmor [-o OUT]``: the morphological classification report."""

from __future__ import annotations

import argparse
from dataclasses import replace

from harem_pipeline.cli.names import run_from_name, scenario_from_name, subset_from_name
from harem_pipeline.cli.options import add_bootstrap, add_input_output, add_scenario
from harem_pipeline.errors import InputError
from harem_pipeline.pipeline.ida2mor import run_ida2mor
from harem_pipeline.pipeline.morphology import read_scenario
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
    add_input_output(
        parser, "an AltinaMor output", "text report (default FILE.ida2mor)", "FILE.altmor"
    )
    overrides = "scenario (overrides the file's header)"
    add_scenario(
        parser,
        (
            f"the file was scored in the absolute {overrides}",
            f"the file was scored in the relative {overrides}",
            "the Vizir scenario the file was scored in (default: the file's "
            "'# Cenário:' line, else .abs/.rel in its name)",
        ),
    )
    parser.add_argument("--run", help="run name shown in the report (default: from the name)")
    parser.add_argument("--subset", help="subset shown in the report (default: from the name)")
    parser.add_argument("--signature", help="signature line to print (default: computed)")
    add_bootstrap(
        parser,
        " of the document bootstrap giving each field's ci95 in the JSON",
        "none, ci95 is null",
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
