"""Option checks shared by the subcommands: numbers in range, outputs that are not inputs.

A bad value is a user's mistake like any other: one ``InputError`` line
naming the option (``--bootstrap: expected a whole number, 0 or more,
found -1``), exit status 2, raised while the arguments are parsed.
"""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable

from harem_pipeline.errors import InputError
from harem_pipeline.measures.resampling import DEFAULT_RESAMPLES, MAX_RESAMPLES
from harem_pipeline.model import Scenario

# Arguments that name files a command reads (whatever the command).
INPUT_DESTS = ("input", "file", "cd", "run", "meta", "grid", "predictions")


def whole_number(option: str, minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``minimum`` (and at most ``maximum``)."""
    what = f"a whole number, {minimum} or more"
    if maximum is not None:
        what = f"a whole number, {minimum} to {maximum}"

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            shown = repr(text) if len(text) <= 60 else repr(text[:59]) + "…"
            raise InputError(option, what, shown) from None
        if value < minimum or (maximum is not None and value > maximum):
            raise InputError(option, what, str(value))
        return value

    convert.__name__ = "int"  # argparse names the type in its own messages
    return convert


def resamples(option: str = "--bootstrap") -> Callable[[str], int]:
    """The ``type`` of every command's ``--bootstrap``: 0 to ``MAX_RESAMPLES``, the bound
    ``pipeline.yaml`` has too."""
    return whole_number(option, 0, MAX_RESAMPLES)


def add_input_output(
    parser: argparse.ArgumentParser, input_help: str, output_help: str, metavar: str | None = None
) -> None:
    """The positional ``input`` a command reads and the ``-o/--output`` it writes."""
    parser.add_argument("input", metavar=metavar, help=input_help)
    parser.add_argument("-o", "--output", help=output_help)


def add_file_step(
    subparsers: argparse._SubParsersAction,
    name: str,
    summary: str,
    description: str,
    files: tuple[str, str] | tuple[str, str, str],
    step: Callable[[str, str | None], object],
) -> None:
    """A command that reads one file and writes one: ``harem NAME IN [-o OUT]`` is
    ``step(IN, OUT)``; ``files`` are :func:`add_input_output`'s helps (and metavar)."""
    parser = subparsers.add_parser(name, help=summary, description=description)
    add_input_output(parser, *files)
    parser.set_defaults(func=functools.partial(_run_file_step, step))


def _run_file_step(step: Callable[[str, str | None], object], args: argparse.Namespace) -> int:
    step(args.input, args.output)
    return 0


def add_bootstrap(
    parser: argparse.ArgumentParser, purpose: str = " of the document bootstrap", zero: str = "none"
) -> None:
    """``--bootstrap N``: the resamples, checked by :func:`resamples`, the one default.

    Its help reads ``resamples{purpose} (default 1000; 0: {zero})``.
    """
    parser.add_argument(
        "--bootstrap",
        type=resamples(),
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"resamples{purpose} (default {DEFAULT_RESAMPLES}; 0: {zero})",
    )


def add_scenario(
    parser: argparse.ArgumentParser, helps: tuple[str, str, str], required: bool = False
) -> None:
    """The scenario's three spellings, one choice: ``-abs``, ``-rel`` (the Java's) and
    ``--scenario absolute|relative``; ``helps`` are theirs in that order."""
    group = parser.add_mutually_exclusive_group(required=required)
    flags = (("-abs", Scenario.ABSOLUTE, helps[0]), ("-rel", Scenario.RELATIVE, helps[1]))
    for flag, scenario, text in flags:
        group.add_argument(flag, dest="scenario", action="store_const", const=scenario, help=text)
    group.add_argument(
        "--scenario",
        dest="scenario",
        type=Scenario.parse,
        metavar="absolute|relative",
        help=helps[2],
    )


def check_output_not_input(args: argparse.Namespace) -> None:
    """Refuse ``-o`` naming a file the command reads: it would be replaced before being read."""
    output = getattr(args, "output", None)
    if not output or output == "-" or not os.path.exists(output):
        return
    for dest in INPUT_DESTS:
        value = getattr(args, dest, None)
        if isinstance(value, str) and os.path.exists(value) and os.path.samefile(value, output):
            option = dest if dest in ("input", "file", "predictions") else f"--{dest}"
            raise InputError("-o/--output", f"a file other than the input ({option})", repr(output))
