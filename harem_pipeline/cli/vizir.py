"""``harem vizir FILE|DIR -abs|-rel [-o OUT]``: score morphological classification.

Mirrors the original ``vizir.pl FILE (-abs|-rel)``; given a folder it works
like ``ACMorf.pl DIR (-abs|-rel)`` and scores every Véus result in it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harem_pipeline.cli import say
from harem_pipeline.cli.options import add_scenario
from harem_pipeline.pipeline.morphology import VizirResult, run_vizir, run_vizir_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "vizir",
        help="score the morphological classification (MORF) of a Véus result",
        description=(
            "Score the MORF attributes of a Véus result file (FILE.vizir), or of every "
            "Véus result of a folder (all or nothing: one bad file, and no output is "
            "written for any). With no MORF on any system entity nothing is written."
        ),
    )
    parser.add_argument("input", metavar="FILE|DIR", help="a Véus result file or a folder")
    add_scenario(
        parser,
        (
            "absolute scenario: missing and spurious entities are scored too",
            "relative scenario: missing and spurious entities are left out",
            "long form of -abs / -rel",
        ),
        required=True,
    )
    parser.add_argument("-o", "--output", help="output file (default FILE.vizir; not for a folder)")
    parser.set_defaults(func=vizir_command)


def vizir_command(args: argparse.Namespace) -> int:
    source = Path(args.input)
    if source.is_dir():
        if args.output:
            say("harem vizir: error: -o is for one file, not a folder")
            return 2
        results, failures = run_vizir_folder(source, args.scenario)  # all or nothing
        for result in results:
            report_result(result)
        for failure in failures:
            say(f"harem vizir: error: {failure.error}")
        if not results and not failures:
            say(f"harem vizir: no Véus result in {source}")
        return 2 if failures else 0
    report_result(run_vizir(source, args.scenario, args.output))
    return 0


def report_result(result: VizirResult) -> None:
    """Nothing when the output was written (quiet on success, as every command); one line
    on stderr when there is none, and why."""
    if result.output is None:
        say(
            f"harem vizir: {result.input}: the system classified no entity morphologically "
            "(no MORF attribute); no output written"
        )
