"""``harem report OUTPUT_DIR``: the self-contained HTML campaign report."""

from __future__ import annotations

import argparse
from pathlib import Path

from harem_pipeline.reports.html import write_report_html


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write OUTPUT_DIR/report.html from a campaign's summary",
        description=(
            "Write OUTPUT_DIR/report.html: leaderboard, every measure per run, subset and "
            "scenario, inline SVG charts (unless the campaign says charts: false); one file "
            "with no network resources. Reads OUTPUT_DIR/summary.json, which `harem run` writes."
        ),
    )
    parser.add_argument(
        "output_dir",
        metavar="OUTPUT_DIR",
        help="the campaign's output folder (output: in pipeline.yaml), holding summary.json",
    )
    parser.set_defaults(func=run_report)


def run_report(args: argparse.Namespace) -> int:
    folder = Path(args.output_dir)
    target = write_report_html(folder / "summary.json", folder / "report.html")
    print(target)
    return 0
