"""``harem stats FILE [--json]``: count what a HAREM collection or run holds."""

from __future__ import annotations

import argparse
import json
import sys

from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.tools.stats import count_collection, format_stats_text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` subcommand."""
    parser = subparsers.add_parser(
        "stats",
        help="count documents, entities, MORF, ALT and OMITIDO in a collection or run",
        description=(
            "Read a HAREM collection or run (First or Second HAREM format, .gz allowed) "
            "and print its counts: every entity tag, including those inside ALT "
            "alternatives and OMITIDO."
        ),
    )
    parser.add_argument("file", help="the collection or run to read")
    parser.add_argument(
        "--meta",
        help="colSegundoHAREM-meta.xml, to count Second HAREM documents by variant and genre",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    """Print the statistics of ``args.file``; return the exit status."""
    stats = count_collection(read_collection(args.file, args.meta))
    if args.json:
        sys.stdout.write(json.dumps(stats, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(format_stats_text(stats))
    return 0
