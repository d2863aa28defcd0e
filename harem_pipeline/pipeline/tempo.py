"""The TEMPO track as a file-to-file step: ``X.emir`` → ``X.emir.tempo`` and its side file.

AvalTEMPO (``docs/spec/tempo.md``, "Invocation and files") reads an Emir
file (``.emir`` or ``.emir.altrel``) and prints every line, its TEMPO
records rewritten (:mod:`harem_pipeline.stages.tempo`); each wrong
attribute adds ``NR:<labels so far>`` to ``FILENAME.ERROS.txt``, a file
written only when the run has an error (an older one stays otherwise).
Both are written atomically in the input's encoding, the side file after
the output, so a bad input leaves neither half written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.formats.alinhado import iter_numbered_lines
from harem_pipeline.stages.tempo import check_emir_line, is_copied, score_lines
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import derived_path

PathLike = str | os.PathLike[str]

ERRORS_SUFFIX = ".ERROS.txt"


def tempo_output(path: PathLike) -> Path:
    """``IN.tempo`` (``.gz`` dropped first): ``X.emir.tempo``, ``X.emir.altrel.tempo``."""
    return derived_path(path, ".tempo")


def tempo_errors_output(path: PathLike, output: PathLike) -> Path:
    """The side file beside ``output``, named after the input as AvalTEMPO names it
    (``FILENAME.ERROS.txt``: ``X.emir.ERROS.txt`` beside ``X.emir.tempo``)."""
    return Path(output).with_name(Path(path).name.removesuffix(".gz") + ERRORS_SUFFIX)


@dataclass(frozen=True, slots=True)
class TempoOutputs:
    """What :func:`run_tempo` wrote: the ``.tempo`` file, the side file (None when the run
    had no error and left it alone) and how many lines that has."""

    path: Path
    errors_path: Path | None
    errors: int


def run_tempo(
    path: PathLike,
    mode: int,
    output: PathLike | None = None,
    errors: PathLike | None = None,
    tempo_only: bool = False,
) -> TempoOutputs:
    """Score the TEMPO attributes of the Emir file ``path`` in ``mode`` (1, 2 or 3) into
    ``output`` (default ``IN.tempo``) and the side file ``errors`` (default
    :func:`tempo_errors_output`); ``tempo_only`` keeps only the TEMPO records (and the
    ``#``, ``DOC`` and empty lines), as the official ``TODOS=0``."""
    target = Path(output) if output is not None else tempo_output(path)
    side = Path(errors) if errors is not None else tempo_errors_output(path, target)
    name = str(path)
    encoding, numbered = iter_numbered_lines(path)

    def lines():
        for number, text, eol in numbered:
            if not is_copied(text):
                check_emir_line(text, name, number)
            yield number, (text + "\r" if eol == "\r\n" else text)  # gawk keeps the \r

    found: list[str] = []
    with atomic_write(target, "w", encoding=encoding, newline="") as handle:
        batch: list[str] = []
        for item in score_lines(lines(), mode, tempo_only):
            batch.append(item.text + "\n")
            found.extend(item.errors)
            if len(batch) >= 4096:
                handle.write("".join(batch))
                batch.clear()
        handle.write("".join(batch))
    if not found:
        return TempoOutputs(target, None, 0)
    with atomic_write(side, "w", encoding=encoding, newline="") as handle:
        handle.write("".join(line + "\n" for line in found))
    return TempoOutputs(target, side, len(found))
