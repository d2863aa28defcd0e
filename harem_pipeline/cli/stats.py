"""``harem stats FILE [--json]``: count what a HAREM collection or run holds."""

from __future__ import annotations

import argparse
import json

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_meta import read_meta
from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.stages.veus import document_infos
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.tools.stats import count_collection, count_meta, format_stats_text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` subcommand."""
    parser = subparsers.add_parser(
        "stats",
        help="count documents, entities, MORF, ALT and OMITIDO in a collection or run",
        description=(
            "Read a HAREM collection or run (First or Second HAREM format, .gz allowed) "
            "and print its counts: every entity tag, including those inside ALT "
            "alternatives and OMITIDO. subset_variants and subset_genres list the subset names "
            "(harem veus --variant/--genre, subsets: in pipeline.yaml) with their documents."
        ),
    )
    parser.add_argument(
        "file", nargs="?", help="the collection or run to read (optional with --meta)"
    )
    parser.add_argument(
        "--meta",
        help="colSegundoHAREM-meta.xml, to count Second HAREM documents by variant and genre; "
        "alone, lists the subset names of its documents",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    """Print the statistics of ``args.file``; return the exit status."""
    if args.file is None and args.meta is None:
        raise InputError(None, "FILE, or --meta META", "neither")
    if args.file is None:
        stats = count_meta(args.meta, document_infos(read_meta(args.meta)))
    else:
        stats = count_collection(read_collection(args.file, args.meta))
    if args.json:
        write_text_atomic("-", json.dumps(stats, ensure_ascii=False, indent=2) + "\n")
    else:
        write_text_atomic("-", format_stats_text(stats))
    return 0
