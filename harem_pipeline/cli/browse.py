"""``harem browse``: a run's alignments as static HTML pages (one per document)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harem_pipeline.cli import say
from harem_pipeline.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``browse`` subcommand."""
    parser = subparsers.add_parser(
        "browse",
        help="write a run's alignments as static HTML pages to browse offline",
        description=(
            "Write one HTML page per document: its text with every gold and system entity "
            "marked and coloured by its AvalIDa verdict (filters by outcome, side and "
            "category; a click shows the entity's .avalida and .emir records and the token "
            "view of harem align --show-tokens; a toggle shows the token numbers in the "
            "text), and an index of the documents with their error counts. Either a "
            "campaign run's folder OUT/<run> (its .avalida and, for subset total, its "
            ".emir; pages go to OUT/<run>/browse unless -o) or --cd and --run (aligned and "
            "evaluated here; the CSC from --emir when given)."
        ),
    )
    parser.add_argument("run_dir", nargs="?", help="a campaign run's folder, OUT/<run>")
    parser.add_argument("--cd", help="the golden collection (with --run)")
    parser.add_argument("--run", help="the system run (with --cd)")
    parser.add_argument(
        "--emir",
        help="with --cd and --run: the run's .emir (harem emir), for each entity's CSC",
    )
    parser.add_argument("-o", "--output", help="the folder to write (default OUT/<run>/browse)")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the pages; print where the index is."""
    from harem_pipeline.pipeline.browse import campaign_inputs, write_browse

    if args.run_dir is not None:
        if args.cd or args.run or args.emir:
            raise InputError(None, "either OUT/<run> or --cd and --run", "both")
        cd, run, avalida, emir, name = campaign_inputs(args.run_dir)
        output = Path(args.output) if args.output else Path(args.run_dir) / "browse"
        written = write_browse(cd, run, output, avalida, emir, name)
    else:
        if not (args.cd and args.run and args.output):
            raise InputError(None, "OUT/<run>, or --cd CD --run RUN -o DIR", "neither")
        written = write_browse(args.cd, args.run, args.output, emir=args.emir)
    for warning in written.warnings:
        say(warning)
    print(f"{written.index} ({written.documents} documents)")
    return 0
