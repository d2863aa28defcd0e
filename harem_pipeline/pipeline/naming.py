"""The default output names of the stages, and the checks and writers around them.

The pipeline names its files as the original tools did
(``run.alinhado.avalida.<subset>.abs.vizir``); what a name tells back (a
command's fallback) is read in :mod:`harem_pipeline.cli.names` only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Record, parse_line, peek_numbered_lines
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import write_text_atomic, written_in_place
from harem_pipeline.text.textio import check_not_empty, derived_path, read_bytes

OUTPUT_SUFFIXES: dict[str, tuple[str, str | None]] = {
    "align": (".alinhado", None),
    "avalida": (".avalida", None),
    "altida": (".altida", None),
    "ida2id": (".ida2id", None),
    "vizir": (".vizir", None),
    "altmor": (".altmor", ".vizir"),
    "ida2mor": (".ida2mor", ".altmor"),
    "alts": (".alts", None),
    "espurios": (".espurios", None),
    "emir": (".emir", None),
    "emir_relativo": (".emir_relativo", None),
    "altsem": (".altrel", None),
    "ida": (".ida", None),
    "tempo": (".tempo", None),
}
"""Each stage's default output name, as the original tools named their files: the
suffix added to the input's name, and the one it replaces (``x.vizir`` → ``x.altmor``)."""


def stage_output(stage: str, path: PathLike, output: PathLike | None = None) -> Path:
    """Where ``stage`` writes: ``output`` when given, else ``IN`` + the stage's suffix
    beside its input ``path`` (:data:`OUTPUT_SUFFIXES`; a ``.gz`` ending dropped first)."""
    if output is not None:
        return Path(output)
    suffix, replaces = OUTPUT_SUFFIXES[stage]
    return derived_path(path, suffix, replaces)


STAGE_INPUTS = {
    "avalida": "an .alinhado file (AlinhEM's records)",
    "altida": "a Véus result (evaluated records)",
    "vizir": "a Véus result (evaluated records)",
    "ida2id": "an .altida file (AltinaID's records)",
    "altmor": "a .vizir file (Vizir's scored records)",
    "ida2mor": "an .altmor file (AltinaMor's records)",
    "alts": "a Véus result (evaluated records)",
}
"""What each record stage reads, as its error for an empty file names it."""


def check_stage_input(stage: str, path: PathLike) -> None:
    """Refuse an empty input of ``stage`` (:func:`~harem_pipeline.text.textio.check_not_empty`)."""
    check_not_empty(path, STAGE_INPUTS[stage])


def check_records_evaluated(stage: str, path: PathLike) -> None:
    """Refuse an input of ``stage`` whose first record has no evaluation (an ``.alinhado``).

    AltinaID and alts read Véus results; an ``.alinhado`` has the same
    lines without the ``:[…]`` evaluations, and outside ALT blocks both
    stages copy records as they are: it went through with exit status 0.
    Only the first record is read (a file is of one kind).
    """
    _, lines = peek_numbered_lines(path)
    for number, text, eol in lines:
        if text[:1] != "<":
            continue
        item = parse_line(text, str(path), number, eol)
        if not isinstance(item, Record):
            continue
        if item.evaluation is None:
            raise InputError(
                str(path),
                f"{STAGE_INPUTS[stage]}: records with their evaluation (harem avalida, then "
                "harem veus)",
                "a record without one (an .alinhado file?)",
                line=number,
            )
        return


def json_twin(path: PathLike) -> Path:
    """``report`` → ``report.json``; standard output, a pipe or a device has none.

    A text report sent to ``-``, a FIFO or ``/dev/stdout`` is the one thing
    the reader asked for: its JSON twin would be a stray ``-.json`` in the
    working folder, or a file made in ``/dev``.  It goes to ``/dev/null``.
    """
    if written_in_place(path):
        return Path(os.devnull)
    path = Path(path)
    return path.with_name(path.name + ".json")


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ReportOutputs(Generic[T]):
    """What a report step wrote (the text report and its JSON twin, :func:`write_twins`)
    and the counts both were made from."""

    text_path: Path
    json_path: Path
    counts: T


JAVA_ENCODING = "iso-8859-1"
"""The encoding of the Java programs' Portuguese labels."""


def java_report_encoding(path: PathLike, encoding: str) -> str:
    """The encoding of a report the Java programs write (Ida2ID's, Ida's) on the input
    ``path`` read in ``encoding``: the input's, but ISO-8859-1 for a plain ASCII input,
    where nothing says UTF-8 and the Java writes its labels (``Precisão``) in ISO-8859-1."""
    if encoding == "utf-8" and read_bytes(path).isascii():
        return JAVA_ENCODING
    return encoding


def write_twins(target: Path, text: str, encoding: str, twin: Mapping[str, Any]) -> Path:
    """Write a text report and its JSON twin (the object ``twin``, as
    :func:`~harem_pipeline.formats.jsontext.format_report_json` writes it), both or
    neither; return the twin's path.

    Both are rendered before anything is written, so a failure while computing
    (the bootstrap out of memory, a bad document) leaves no file at all; a
    failure writing the twin takes the text report back, unless that went to
    a pipe or a device, which cannot be taken back.
    """
    json_text = format_report_json(twin)
    json_path = json_twin(target)
    write_text_atomic(target, text, encoding=encoding)
    try:
        write_text_atomic(json_path, json_text)
    except BaseException:
        if not written_in_place(target):
            target.unlink(missing_ok=True)
        raise
    return json_path
