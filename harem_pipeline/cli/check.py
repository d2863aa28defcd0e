"""``harem check``: gate a CI job on a report's numbers."""

from __future__ import annotations

import argparse

from harem_pipeline.cli import say
from harem_pipeline.text.textio import read_json_object
from harem_pipeline.tools.gate import check_bounds, parse_bound


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="exit 1 when a report's numbers miss a bound (for CI)",
        description=(
            "Check bounds on a report's JSON. Exit 0 when every bound holds, 1 with one line "
            "per failed bound, 2 for a missing key or a bad file. An undefined (null) value "
            "fails its bound."
        ),
    )
    parser.add_argument("report", metavar="REPORT.json")
    parser.add_argument(
        "--min",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="dotted key must be >= VALUE, e.g. fields.combinada.medida_f=0.6",
    )
    parser.add_argument(
        "--max",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="dotted key must be <= VALUE, e.g. sobre_geracao=0.1",
    )
    parser.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    bounds = [parse_bound(text, "min") for text in args.min]
    bounds += [parse_bound(text, "max") for text in args.max]
    if not bounds:
        say("harem check: error: give at least one --min or --max")
        return 2
    failures = check_bounds(read_json_object(args.report), bounds, args.report)
    for line in failures:
        print(f"FAILED {line}")
    if not failures:
        print(f"ok: {len(bounds)} bound(s) hold in {args.report}")
    return 1 if failures else 0
