"""``harem compare A.json B.json``: is B really better than A? (paired document bootstrap)."""

from __future__ import annotations

import argparse
import json

from harem_pipeline.cli.options import add_bootstrap, whole_number
from harem_pipeline.measures.resampling import DEFAULT_SEED, Resampling
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.tools.compare import (
    compare_reports,
    comparison_json,
    format_comparison_text,
    load_report,
)

DESCRIPTION = """\
Compare two report JSONs of the same kind (two .ida2id.json, two .ida2mor.json
-- every field --, two Ida reports such as .emir.ida.json -- identification
and classification (classificacao_*) P, R, F -- or two JSONs of harem
measures) over the documents both were
scored on, from the per-document counts the reports carry.  For each measure:
A, B and B-A over the shared documents, and a one-sided paired bootstrap
p-value: the share of resamples of documents in which B is not better than A
(not higher; not lower for an error rate such as Sobre-geração).  Identical
reports give B-A = 0 and p = 1; a small p means B's lead holds across samples
of documents.  Reports of different kinds or without shared documents are an
error (exit status 2)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` subcommand."""
    parser = subparsers.add_parser(
        "compare",
        help="is B better than A? paired bootstrap over two reports' shared documents",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", metavar="A.json", help="the baseline report")
    parser.add_argument("b", metavar="B.json", help="the report compared with it")
    add_bootstrap(parser, "", "no p-values")
    parser.add_argument(
        "--seed",
        type=whole_number("--seed", 0),
        default=DEFAULT_SEED,
        help=f"random seed (default {DEFAULT_SEED})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    """Print the comparison; return the exit status."""
    resampling = Resampling(args.bootstrap, args.seed)
    comparison = compare_reports(load_report(args.a), load_report(args.b), resampling)
    if args.json:
        write_text_atomic("-", json.dumps(comparison_json(comparison), indent=2) + "\n")
    else:
        write_text_atomic("-", format_comparison_text(comparison))
    return 0
