"""The ``harem`` command line: one subcommand per stage.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (a function
of the parsed arguments returning an exit status).  This module is the only
place that turns a library error into an exit status: a user's mistake
(``HaremError``) prints one line on stderr and exits 2, never a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from harem_pipeline import __version__
from harem_pipeline.cli.options import check_output_not_input
from harem_pipeline.errors import HaremError, escape_controls, install_warning_line
from harem_pipeline.text.atomic import release_abandoned
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
    "tempo",
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
    "browse",
    "rerelem",
)
# Commands whose module is named otherwise (``import`` is a Python keyword).
COMMAND_ALIASES = {"import": "import_run"}

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors (which quote the arguments) escaped as ours are."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, escape_controls(f"{self.prog}: error: {message}") + "\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand registered.

    ``only`` registers that one subcommand: running a command then imports
    only its own module, so one stage's heavy imports never slow another.
    """
    parser = _Parser(
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
    install_warning_line()
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    module = COMMAND_ALIASES.get(command or "", command)
    parser = build_parser(module if module in COMMAND_MODULES else None)
    try:
        args = parser.parse_args(argv)
    except HaremError as exc:  # an option out of range (see ``cli.options``)
        say_error(str(command), str(exc))
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
        say_error(args.command, str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        say(f"harem {args.command}: interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # an output folder that cannot be written, a disk full...
        where = f"{exc.filename}: " if exc.filename else ""
        say_error(args.command, f"{where}{exc.strerror or exc}")
        return EXIT_USAGE
    finally:
        release_abandoned()  # a FIFO given to -o and never written: its reader sees the end


def say_error(command: str, message: str) -> None:
    """The one line of a failed command: ``harem CMD: error: MESSAGE``."""
    say(f"harem {command}: error: {message}")


def say(line: str) -> None:
    """Print one line on stderr, its control characters escaped (it may quote an input).

    The command line's one way to speak to the user: an input's ``ESC[2J``
    cannot clear the terminal nor forge a line.  A closed stderr is no error.
    """
    if sys.stderr is not None:
        print(escape_controls(line), file=sys.stderr)


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


BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}
"""The thread count of numpy's BLAS (OpenBLAS, in numpy's wheels) in a ``harem`` process,
unless the environment sets it.

The one product BLAS computes here is the bootstrap's draw counts times
whole-number counts (:func:`harem_pipeline.measures.bootstrap.weighted_sum`),
a few hundred rows for a report.  OpenBLAS starts a thread per core when numpy
loads and keeps them spinning, beside the command's own reading (or the
process it reads in): some 40 ms of the 0.25 s of ``harem ida`` on the
shipped Second HAREM run (bench/README.md, "Start-up").
"""


def run() -> None:
    """Console-script entry point."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    hold_closed_descriptors()
    leave(main())


def leave(status: int) -> NoReturn:
    """End the process with ``status`` once its exit handlers have run, without the
    interpreter's teardown when nothing else runs in it.

    A command's outputs are closed (written atomically) by the time
    :func:`main` returns; the teardown then frees every object and module one
    by one, numpy's among them, for the operating system to take back at
    once anyway: some 20 ms of the 0.2 s of ``harem ida`` on the shipped
    Second HAREM run (bench/README.md, "Start-up").  The exit handlers
    (``atexit``: finalizers of temporary folders, logging, the process
    machinery) still run, and the standard streams are flushed first.  With
    another thread alive, or a standard stream that cannot be flushed, the
    process exits as usual (``sys.exit``).
    """
    if threading.active_count() == 1:
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):
            sys.exit(status)
        atexit._run_exitfuncs()  # what the interpreter runs first at its exit
        os._exit(status)
    sys.exit(status)


def hold_closed_descriptors() -> None:
    """Put ``/dev/null`` on a standard descriptor (0, 1, 2) that was closed (``>&-``).

    Else the first file the command opens takes that number, and whatever
    writes to it (a library, a child process) writes into that file.
    Python has already set ``sys.stdout`` (or stdin, stderr) to ``None``:
    writing there is still refused with one line
    (:func:`~harem_pipeline.text.atomic.standard_output`).
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
