"""``harem tempo X.emir|X.altrel --mode 1|2|3 [-o OUT] [--errors FILE] [--tempo-only]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.pipeline.tempo import run_tempo
from harem_pipeline.stages.tempo import CORRECTIONS, MODE_NAMES

_MODES = ", ".join(
    f"{mode} ({name.removeprefix('estendido_')})" for mode, name in MODE_NAMES.items()
)


def tempo_mode(text: str) -> int:
    """An argparse ``type``: AvalTEMPO's ``MODO``, 1, 2 or 3."""
    if text.strip() not in {str(mode) for mode in MODE_NAMES}:
        raise InputError("--mode", f"one of {_MODES}", repr(text))
    return int(text)


tempo_mode.__name__ = "int"


def correction(text: str) -> str:
    """An argparse ``type``: the name of one of the opt-in corrections."""
    if text not in CORRECTIONS:
        raise InputError("--correct", f"one of {', '.join(CORRECTIONS)}", repr(text))
    return text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tempo`` subcommand."""
    parser = subparsers.add_parser(
        "tempo",
        help="score the TEMPO track's time attributes of an Emir file (AvalTEMPO)",
        description=(
            "Read an .emir or .emir.altrel file and write INPUT.tempo as the official "
            "AvalTEMPO.awk run in 2008 does (pt_PT locale, decimal point honoured): each "
            "TEMPO record's MaxCSC_CD, MaxCSC_S and CSC raised by the credit for TEMPO_REF, "
            "SENTIDO, VAL_NORM and VAL_DELTA, and a second ::[{...}] block with the "
            "attributes' outcome.  Each wrong attribute adds a line to INPUT.ERROS.txt "
            "beside the output (written only when there is one).  Then 'harem ida "
            "INPUT.tempo' gives the track's figures."
        ),
    )
    parser.add_argument("input", help="the .emir or .emir.altrel file (.gz allowed)")
    parser.add_argument(
        "--mode",
        type=tempo_mode,
        required=True,
        help="1 completo (all four attributes), 2 semnorm (TEMPO_REF and SENTIDO), "
        "3 sonorm (VAL_NORM and VAL_DELTA)",
    )
    parser.add_argument("-o", "--output", help="output file (default: INPUT.tempo)")
    parser.add_argument(
        "--errors",
        help="side file of the wrong attributes (default: INPUT.ERROS.txt beside the output)",
    )
    parser.add_argument(
        "--tempo-only",
        action="store_true",
        help="write only the TEMPO records and the #, DOC and empty lines (TODOS=0)",
    )
    parser.add_argument(
        "--correct",
        action="append",
        default=[],
        type=correction,
        metavar="NAME",
        help="an opt-in departure from the 2008 program, repeatable: "
        + "; ".join(f"{name}: {what}" for name, what in CORRECTIONS.items()),
    )
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Write the ``.tempo`` file (and its side file); return the exit status."""
    if not Path(args.input).is_file():
        raise InputError(args.input, "an existing file", "no such file")
    errors = Path(args.errors) if args.errors else None
    if errors is not None and errors.exists() and errors.samefile(args.input):
        raise InputError("--errors", "a file other than the input", repr(args.errors))
    corrections = tuple(dict.fromkeys(args.correct))
    run_tempo(args.input, args.mode, args.output, args.errors, args.tempo_only, corrections)
    return 0
