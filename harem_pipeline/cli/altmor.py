"""``harem altmor FILE.vizir [-o OUT]``: keep the best CD alternative of each ALT block."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_file_step
from harem_pipeline.pipeline.morphology import run_altmor


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``altmor`` subcommand."""
    add_file_step(
        subparsers,
        "altmor",
        "AltinaMor: replace each <ALT> block of a .vizir file by its best alternative",
        (
            "Score every alternative of each <ALT> block on the Combinada field (add-one "
            "smoothed F) and keep the best one, after a '# ALT escolhida: k de n' line."
        ),
        ("a Vizir output", "output file (default FILE.altmor)", "FILE.vizir"),
        run_altmor,
    )
