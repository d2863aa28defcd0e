"""``harem simulate``: a simulated system run over a golden collection."""

from __future__ import annotations

import argparse

from harem_pipeline.text.atomic import write_bytes_atomic
from harem_pipeline.tools.simulate import PROFILES, format_profile_table, simulated_run_bytes

DESCRIPTION = """\
Write a SIMULATED system run: the golden collection's own annotation with
errors injected at each profile's documented rates.  It is not the output of
any real system; the file's first comment says so and how it was made.

The run is in the collection's format, encoding and line ends; its running
text is the collection's, character for character; ALT blocks are resolved
to one alternative (the first for 'perfect'); OMITIDO tags are dropped, the
text and entities inside them kept (the evaluation, not a system, leaves
them out).  The same collection, profile and seed always give the same
bytes.  An output
name ending in .gz is gzipped (reproducibly: no time stamp, no file name)."""

EPILOG = (
    "error rates per profile (fractions of the golden entities; 'type' of those\n"
    "whose category is kept; 'morf' of those with MORF):\n\n"
    + format_profile_table()
    + "\n\nexample (the shipped default campaign):\n"
    "  harem simulate --cd data/first-harem/ColeccaoDouradaHAREM.txt \\\n"
    "      --profile strong --seed 1 -o data/campaign/sim-strong.txt.gz"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="write a simulated system run (errors at documented rates) for a collection",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--cd", required=True, metavar="CD", help="the golden collection")
    parser.add_argument(
        "--profile", required=True, choices=list(PROFILES), help="the simulated system's profile"
    )
    parser.add_argument("--seed", type=int, default=1, metavar="N", help="random seed (default 1)")
    parser.add_argument(
        "-o", "--output", metavar="RUN", help="where to write the run (default: standard output)"
    )
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    gzip_it = args.output is not None and args.output.endswith(".gz")
    data = simulated_run_bytes(args.cd, args.profile, args.seed, gzip_it)
    write_bytes_atomic(args.output or "-", data)
    return 0
