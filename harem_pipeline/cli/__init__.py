"""The ``harem`` command line: one subcommand per stage.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (a function
of the parsed arguments returning an exit status).  This module is the only
place that turns a library error into an exit status: a user's mistake
(``HaremError``) prints one line on stderr and exits 2, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from harem_pipeline import __version__
from harem_pipeline.cli.options import check_output_not_input
from harem_pipeline.errors import HaremError
from harem_pipeline.text.progress import set_quiet

# Subcommand modules, in the order ``harem --help`` lists them.  A module that
# does not exist yet is skipped, so stages can land one at a time.
COMMAND_MODULES = (
    "stats",
    "align",
    "avalida",
    "veus",
    "altida",
    "ida2id",
    "alts",
    "espurios",
    "emir",
    "altsem",
    "ida",
    "vizir",
    "altmor",
    "ida2mor",
    "measures",
    "simulate",
    "run",
    "report",
    "check",
    "compare",
    "import_run",
    "export",
    "rerelem",
)
# Commands whose module is named otherwise (``import`` is a Python keyword).
COMMAND_ALIASES = {"import": "import_run"}

EXIT_OK = 0
EXIT_FAILED_CHECK = 1
EXIT_USAGE = 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand registered.

    ``only`` registers that one subcommand: running a command then imports
    only its own module, so one stage's heavy imports never slow another.
    """
    parser = argparse.ArgumentParser(
        prog="harem",
        description="HAREM named-entity evaluation: the classic stages and span measures.",
    )
    parser.add_argument("--version", action="version", version=f"harem-pipeline {__version__}")
    parser.add_argument(
        "-q",
        "--quiet",
        dest="global_quiet",
        action="store_true",
        help="no progress bars (they are shown only on a terminal anyway)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"harem_pipeline.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"harem_pipeline.cli.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``harem`` with ``argv``; return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    module = COMMAND_ALIASES.get(command or "", command)
    parser = build_parser(module if module in COMMAND_MODULES else None)
    try:
        args = parser.parse_args(argv)
    except HaremError as exc:  # an option out of range (see ``cli.options``)
        print(f"harem {command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.global_quiet:
        set_quiet()
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        check_output_not_input(args)
        return int(args.func(args) or 0)
    except HaremError as exc:
        print(f"harem {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"harem {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # an output folder that cannot be written, a disk full...
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"harem {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE


COLLECTOR_THRESHOLDS = (20_000, 50, 100)
"""The cyclic garbage collector's thresholds in a ``harem`` process.

A command is one process that imports a few hundred modules and then
streams records: at Python's default (a collection of the young objects
every 700 new containers, of all of them every 100 of those) the
collector walks the imported modules' objects, numpy's among them, again
and again: about 0.05 s of the 0.5 s of ``harem ida`` on the shipped
Second HAREM run.  Collections still run, less often, so memory stays
bounded; nothing is written differently.
"""


def run() -> None:
    """Console-script entry point."""
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    sys.exit(main())
