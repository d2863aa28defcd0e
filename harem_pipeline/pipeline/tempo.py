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

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.formats.alinhado import iter_numbered_lines
from harem_pipeline.pipeline.naming import stage_output
from harem_pipeline.stages.tempo import MODE_NAMES, EmirCheck, is_copied, score_lines
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import read_bytes

ERRORS_SUFFIX = ".ERROS.txt"


def tempo_errors_output(path: PathLike, output: PathLike) -> Path:
    """The side file beside ``output``, named after the input as AvalTEMPO names it
    (``FILENAME.ERROS.txt``: ``X.emir.ERROS.txt`` beside ``X.emir.tempo``); beside the
    input when the output is standard output (``-``)."""
    beside = Path(path) if str(output) == "-" else Path(output)
    return beside.with_name(Path(path).name.removesuffix(".gz") + ERRORS_SUFFIX)


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
    corrections: tuple[str, ...] = (),
) -> TempoOutputs:
    """Score the TEMPO attributes of the Emir file ``path`` in ``mode`` (1, 2 or 3) into
    ``output`` (default ``IN.tempo``) and the side file ``errors`` (default
    :func:`tempo_errors_output`); ``tempo_only`` keeps only the TEMPO records (and the
    ``#``, ``DOC`` and empty lines), as the official ``TODOS=0``; ``corrections`` the
    opt-in departures from the 2008 program (:data:`~harem_pipeline.stages.tempo.CORRECTIONS`)."""
    target = stage_output("tempo", path, output)
    side = Path(errors) if errors is not None else tempo_errors_output(path, target)
    name = str(path)
    encoding, numbered = iter_numbered_lines(path)

    check = EmirCheck(name)

    def lines() -> Iterator[tuple[int, str]]:
        for number, text, eol in numbered:
            if not is_copied(text):
                check(text, number)
            yield number, (text + "\r" if eol == "\r\n" else text)  # gawk keeps the \r

    found: list[str] = []
    with atomic_write(target, "w", encoding=encoding, newline="") as handle:
        batch: list[str] = []
        for item in score_lines(lines(), mode, tempo_only, corrections):
            if item.text is not None:
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


# ---------------------------------------------------------------------------
# The campaign's TEMPO track

TEMPO_MODES = tuple(MODE_NAMES)
"""The modes a campaign runs by default: all three, as the official order does."""
_MODE_WORDS = {name.removeprefix("estendido_"): mode for mode, name in MODE_NAMES.items()}
_TEMPO_ATTRIBUTE = re.compile(rb"<EM [^>]*\b(?:TEMPO_REF|SENTIDO|VAL_NORM|VAL_DELTA)=")


def tempo_modes_setting(value: object) -> tuple[int, ...] | None:
    """``tempo:`` of ``pipeline.yaml``: ``{modes: [1, 2, 3]}`` (or the names ``completo``,
    ``semnorm``, ``sonorm``), ``false`` for none; None (the key left out) is the default,
    every mode when the collection has TEMPO attributes.  A wrong value is a ValueError
    whose text says what was expected."""
    if value is None or value is True:
        return None
    if value is False:
        return ()
    if not isinstance(value, dict) or set(value) - {"modes"}:
        raise ValueError("expected false or a mapping {modes: [1, 2, 3]}")
    modes = value.get("modes", list(TEMPO_MODES))
    if not isinstance(modes, list):
        raise ValueError("modes: expected a list of 1, 2, 3 (completo, semnorm, sonorm)")
    chosen: list[int] = []
    for item in modes:
        mode = _MODE_WORDS.get(item, item) if isinstance(item, str) else item
        if isinstance(mode, bool) or mode not in MODE_NAMES:
            raise ValueError(f"modes: expected 1, 2, 3 (completo, semnorm, sonorm), found {item!r}")
        chosen.append(mode)
    return tuple(dict.fromkeys(chosen))


def collection_has_tempo(path: PathLike) -> bool:
    """Whether a golden collection has TEMPO attributes (else the track has nothing to score)."""
    return _TEMPO_ATTRIBUTE.search(read_bytes(path)) is not None


def campaign_tempo_modes(setting: tuple[int, ...] | None, collection: PathLike) -> tuple[int, ...]:
    """The modes a campaign runs: its ``tempo:`` setting, or every mode when the collection
    has TEMPO attributes and none when it has not."""
    if setting is not None:
        return setting
    return TEMPO_MODES if collection_has_tempo(collection) else ()


def tempo_names(emir: PathLike, mode: int) -> tuple[Path, Path]:
    """A campaign's ``.tempo`` of an Emir file in ``mode`` and its side file:
    ``X.emir.estendido_completo.tempo``, ``X.emir.estendido_completo.ERROS.txt`` (one
    side file per mode: the official one, shared by the three, keeps only the last)."""
    emir = Path(emir)
    stem = f"{emir.name}.{MODE_NAMES[mode]}"
    return emir.with_name(stem + ".tempo"), emir.with_name(stem + ERRORS_SUFFIX)


def tempo_step(source: PathLike, mode: int) -> list[Path]:
    """The campaign's step: :func:`run_tempo` to :func:`tempo_names`, an older side file
    removed first (it would otherwise outlive a run that has no error)."""
    output, errors = tempo_names(source, mode)
    errors.unlink(missing_ok=True)
    written = run_tempo(source, mode, output, errors)
    return [written.path] + ([] if written.errors_path is None else [written.errors_path])


OFFICIAL_TEMPO_VEILS = ("total", "cenario2", "cenario4", "cenario6", "tempo")
"""The veils ``Avaliacao.sh tempo`` scores the TEMPO track under (its indices 3–7,
``docs/spec/tempo.md``, "Official order")."""


def tempo_page_veils(veils: Iterable[str]) -> tuple[str, ...]:
    """The official TEMPO veils among a campaign's ``veils:`` names, in the official order;
    a TEMPO veil the campaign does not list has no TEMPO page (its chain was never run)."""
    listed = set(veils)
    return tuple(veil for veil in OFFICIAL_TEMPO_VEILS if veil in listed)


def tempo_page_prefix(mode: int) -> str:
    """The official pages' name part of a mode: ``TEMPO_estendido_completo`` …, so that
    the pages are ``resultados_TEMPO_<mode>_<veil>.html`` (and the ``altrel`` twins)."""
    return f"TEMPO_{MODE_NAMES[mode]}"


def tempo_output_names(veus: str, setting: tuple[int, ...] | None) -> list[str]:
    """The names the TEMPO track may write for a subset's Véus file name ``veus`` (for the
    campaign's check that no output matches a run pattern; the setting None: every mode)."""
    names = []
    for mode in TEMPO_MODES if setting is None else setting:
        for emir in (f"{veus}.alts.emir", f"{veus}.alts.emir.altrel"):
            tempo, errors = tempo_names(emir, mode)
            names += [tempo.name, errors.name, f"{tempo.name}.ida", f"{tempo.name}.ida.json"]
    return names
