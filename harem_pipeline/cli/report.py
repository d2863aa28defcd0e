"""``harem report OUTPUT_DIR``: the self-contained HTML campaign report."""

from __future__ import annotations

import argparse
from pathlib import Path

from harem_pipeline.atomic import write_text_atomic
from harem_pipeline.reports.html import render_report
from harem_pipeline.textio import read_json_object


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write OUTPUT_DIR/report.html from a campaign's summary",
        description=(
            "Write OUTPUT_DIR/report.html: leaderboard, every measure per run, subset and "
            "scenario, inline SVG charts; one file with no network resources. Reads "
            "OUTPUT_DIR/summary.json, which `harem run` writes."
        ),
    )
    parser.add_argument("output_dir", metavar="OUTPUT_DIR")
    parser.set_defaults(func=run_report)


def run_report(args: argparse.Namespace) -> int:
    folder = Path(args.output_dir)
    summary = read_json_object(str(folder / "summary.json"))
    target = folder / "report.html"
    write_text_atomic(target, render_report(summary))
    print(target)
    return 0
