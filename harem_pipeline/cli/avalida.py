"""``harem avalida IN [-o OUT]``: judge the identification of every aligned entity."""

from __future__ import annotations

import argparse

from harem_pipeline.cli.options import add_file_step
from harem_pipeline.pipeline.identification import run_avalida


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``avalida`` subcommand."""
    add_file_step(
        subparsers,
        "avalida",
        "evaluate an .alinhado file (Correcto, Parcialmente_Correcto_…, Em_Falta, Espurio)",
        (
            "Read an AlinhEM .alinhado file (.gz allowed) and write it with an identification "
            "evaluation after every record, as the HAREM AvalIDa does."
        ),
        ("the .alinhado file", "output file (default: INPUT.avalida)"),
        run_avalida,
    )
