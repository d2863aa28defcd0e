"""``pipeline.yaml``: one file that says everything that changes a score.

Paths in the file are relative to the file itself, so a campaign folder can
be moved or run from anywhere.  Everything is validated before any task
starts: an unknown key, a wrong type or a missing file is one
``ConfigError`` line naming the key path, what is wrong and a hint.

Example::

    collection: data/first-harem/ColeccaoDouradaHAREM.txt
    runs:
      - data/campaign/*.txt              # a path or a glob
      - path: runs/mine.txt              # or a mapping
        name: mine
        veil: "PESSOA:LOCAL"             # the categories this run declared (selective subsets)
    output: out
    subsets: [total, pt, br, jornalistico, pt.jornalistico, selectivo]
    scenarios: [absolute, relative]
    style: harem
    workers: 2
    veils: official                      # or [total, pessoa, {name: meu, veil: "PESSOA:LOCAL"}]

A run's ``veil:`` may name one of ``veils:`` (``veil: cenario2``): its system
veil and its ``proprio`` scenario (``docs/spec/official-grid.md``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import glob
import os
import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from harem_pipeline.errors import ConfigError, InputError
from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.measures.resampling import MAX_RESAMPLES
from harem_pipeline.model import Scenario
from harem_pipeline.pipeline.manifest import CAMPAIGN_MANIFEST, MANIFEST_SUFFIX
from harem_pipeline.pipeline.rerelem import (
    RerelemSetting,
    campaign_rerelem,
    rerelem_output_names,
    rerelem_setting,
)
from harem_pipeline.pipeline.tempo import tempo_modes_setting, tempo_output_names
from harem_pipeline.stages.emir import parse_weights
from harem_pipeline.tools.predictions import FORMATS as PREDICTION_FORMATS
from harem_pipeline.tools.predictions import parse_label_map

STYLES = ("harem", "muc", "relaxado")
SCENARIOS = ("absolute", "relative")
TOP_LEVEL_KEYS = {
    "collection",
    "collection_meta",
    "runs",
    "output",
    "subsets",
    "scenarios",
    "style",
    "veil",
    "workers",
    "bootstrap",
    "weights",
    "penalties",
    "grid",
    "charts",
    "tempo",
    "rerelem",
    "browse",
    "veils",
    "ceilings",
}
RUN_KEYS = {"path", "name", "veil", "format", "scheme", "only_predicted", "label_map"}
_VARIANT = re.compile(r"^[a-z]{2}$")
_GENRE = re.compile(r"^[a-z_]{3,}$")
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
NAME_MAX = 255
"""The longest file name, in bytes, that the common file systems take (ext4, XFS, APFS, NTFS)."""
_TEMPORARY_EXTRA = len(".") + len(".12345678.tmp")
"""What ``atomic_write`` adds to a name for its temporary (``.NAME.XXXXXXXX.tmp``)."""
MAX_VALUES = 10_000
"""The most values (scalars, lists, mappings) a ``pipeline.yaml`` may hold once its aliases
are expanded.  A real campaign has a few hundred; a few lines of nested aliases expand to
billions (the "billion laughs"), which a build would walk and an error message print."""
SHOWN = 60
"""The most characters of a value any message shows."""
SHOWN_PATH = 200
"""The most characters of a path as written in the file that a message shows."""


@dataclass(frozen=True, slots=True)
class Subset:
    """One evaluation subset: documents by variant and genre, categories by veil."""

    name: str
    variant: str | None = None
    genre: str | None = None
    selective: bool = False


@dataclass(frozen=True, slots=True)
class NamedVeil:
    """A veil of the scenario grid: the name its files and pages take, and its definition."""

    name: str
    veil: str


def official_veils() -> tuple[NamedVeil, ...]:
    """The 15 veils of the official grid, as shipped in ``resources/official_veils.tsv``."""
    text = files("harem_pipeline.resources").joinpath("official_veils.tsv").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return tuple(NamedVeil(name, veil) for name, veil in rows)


_VEIL_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""A named veil: lower case (a veil's categories are upper case)."""


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One system run of the campaign."""

    name: str
    path: Path
    veil: str | None = None
    format: str | None = None
    """``harem-json``, ``conll`` or ``jsonl``: a model's predictions, imported first; None:
    a HAREM run."""
    scheme: str = "lenient"
    """The tag scheme of CoNLL predictions."""
    only_predicted: bool = False
    """Predictions only: score only the documents they name (the others imported empty)."""
    veil_name: str | None = None
    """The named veil of ``veils:`` the run's ``veil:`` gave (its system veil and its
    ``proprio`` scenario); None when it gave a veil or nothing."""
    label_map: tuple[tuple[str, str], ...] = ()
    """Predictions only: the model's labels renamed on import (``label_map:``, as
    ``harem import --label-map``), in the order given."""
    ceiling_of: str | None = None
    """A ceiling run: the name of the model run whose gold it is (the golden collection
    exported in that model's label set, its ``path``, read back as predictions)."""


@dataclass(frozen=True, slots=True)
class Campaign:
    """A validated campaign; every path is absolute."""

    source: Path
    collection: Path
    collection_meta: Path | None
    runs: tuple[RunSpec, ...]
    output: Path
    subsets: tuple[Subset, ...]
    scenarios: tuple[str, ...]
    style: str
    veil: str
    workers: int
    bootstrap: int
    weights: str | None = None
    """Emir's ``id;α;β;γ`` (None: the official ``1;1;0.5;0.25``)."""
    penalties: bool = False
    """Subtract Emir's documented penalties (the official programs never do)."""
    grid: Path | None = None
    """The category grid (None: ``harem.conf``, or the 2005 grid for a First HAREM CD)."""
    charts: bool = True
    """Draw the HTML report's charts.  They change no figure; without them a build spends
    no time in matplotlib (about a second per report), which a run in CI may not need."""
    tempo: tuple[int, ...] | None = None
    """The TEMPO track's modes (``tempo: {modes: [...]}``; ``()``: off); None: every mode
    when the collection has TEMPO attributes (``pipeline.tempo.campaign_tempo_modes``)."""
    browse: bool = True
    """Write every run's alignment pages (``harem browse``) to ``<output>/<run>/browse/``,
    linked from the report.  They change no figure; without them a build spends no time
    aligning each run a second time for its token view (a few seconds per run)."""
    ceilings: bool = True
    """Score, beside each model run (``format:``), its ceiling run ``NAME-ceiling``: the
    gold itself exported in the model's label set and read back (``ceiling_runs``)."""
    veils: tuple[NamedVeil, ...] = ()
    """The named veils every run is evaluated under (``veils:``; the official grid of
    ``docs/spec/official-grid.md`` for ``official``); empty: the one ``veil``."""
    veil_style: str = "muc"
    """The style of the named veils' chains: muc, as the official script, unless
    ``style:`` is given."""
    rerelem: RerelemSetting | None = None
    """The ReRelEM track's relation scenarios × NER veils (``rerelem:``; both empty: off);
    None: the official 5 × {total, cenario5} when the collection has relations
    (``pipeline.rerelem.campaign_rerelem``)."""

    def named_veil(self, name: str) -> NamedVeil:
        """The named veil ``name`` of ``veils:``."""
        for veil in self.veils:
            if veil.name == name:
                return veil
        for veil in official_veils():  # the ReRelEM track's veils name official ones
            if veil.name == name:
                return veil
        raise ConfigError(str(self.source), "veils", f"no veil named {name!r}")

    @property
    def ceiling_runs(self) -> tuple[RunSpec, ...]:
        """Each model run's ceiling run (none with ``ceilings: false``), in the runs' order."""
        if not self.ceilings:
            return ()
        return tuple(ceiling_run(self.output, run) for run in self.runs if run.format)

    @property
    def scored_runs(self) -> tuple[RunSpec, ...]:
        """The runs the summary scores: each run, followed by its ceiling run if any."""
        ceilings = {run.ceiling_of: run for run in self.ceiling_runs}
        return tuple(kept for run in self.runs for kept in (run, ceilings.get(run.name)) if kept)

    def run(self, name: str) -> RunSpec:
        """The run called ``name``, a ceiling run too (a ConfigError naming the known
        ones otherwise)."""
        for run in self.scored_runs:
            if run.name == name:
                return run
        known = ", ".join(r.name for r in self.runs)
        raise ConfigError(str(self.source), "runs", f"no run named {name!r}", known)

    def subset(self, name: str) -> Subset:
        """The subset called ``name`` (a ConfigError naming the known ones otherwise)."""
        for subset in self.subsets:
            if subset.name == name:
                return subset
        known = ", ".join(s.name for s in self.subsets)
        raise ConfigError(str(self.source), "subsets", f"no subset named {name!r}", known)


CEILING_SUFFIX = "-ceiling"
"""A ceiling run's name: its model run's name and this."""


def ceiling_run(output: Path, model: RunSpec) -> RunSpec:
    """The ceiling run of the model run ``model``: the gold exported in the model's label
    set (as ``harem_pipeline.evaluate()``'s ``ceiling``), written in its own run folder,
    scored under the model's veil and documents."""
    name = model.name + CEILING_SUFFIX
    return RunSpec(
        name,
        output / name / f"{name}.gold.json",
        veil=model.veil,
        format="harem-json",
        only_predicted=model.only_predicted,
        veil_name=model.veil_name,
        ceiling_of=model.name,
    )


def parse_subset(name: str) -> Subset | None:
    """Parse ``total``, ``pt``, ``jornalistico``, ``pt.jornalistico``, ``selectivo[.…]``.

    None when the name is not of that shape.
    """
    if name == "total":
        return Subset("total")
    parts = name.split(".")
    selective = parts[0] == "selectivo"
    if selective:
        parts = parts[1:]
    variant = genre = None
    if parts and _VARIANT.match(parts[0]):
        variant, parts = parts[0], parts[1:]
    if parts and _GENRE.match(parts[0]) and parts[0] not in {"total", "selectivo"}:
        genre, parts = parts[0], parts[1:]
    if parts:
        return None
    return Subset(name, variant, genre, selective)


def run_name(path: str | Path) -> str:
    """The default name of a run: its file name without ``.gz`` and the last extension."""
    return Path(str(path).removesuffix(".gz")).stem


def _type_name(value: Any) -> str:
    return type(value).__name__ if value is not None else "nothing"


def shown(value: Any) -> str:
    """``repr(value)`` cut to :data:`SHOWN` characters: a message is one short line, whatever
    the value (a list of a million items, a string of a megabyte)."""
    if isinstance(value, list | dict) and len(value) > SHOWN:
        value = value[:SHOWN] if isinstance(value, list) else dict(list(value.items())[:SHOWN])
    return cut(repr(value))


def cut(text: str, limit: int = SHOWN) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count_values(data: Any, limit: int) -> int:
    """How many values ``data`` holds with its shared parts counted each time they appear
    (as a walk over it meets them), stopping once past ``limit``."""
    count = 0
    pending = [data]
    while pending and count <= limit:
        value = pending.pop()
        count += 1
        if isinstance(value, Mapping):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return count


class _DuplicateKey(Exception):
    """A mapping of ``pipeline.yaml`` names one key twice (lines counted from 1)."""

    def __init__(self, key: str, first: int, second: int) -> None:
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping.

    PyYAML keeps the last value silently: ``output: a`` then ``output: b``
    would build into ``b`` and leave the reader of the file sure of ``a``.
    Merge keys (``<<: *base``) are YAML's own way to override, and keep it.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue
            key = self.construct_scalar(key_node)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise _DuplicateKey(cut(str(key)), seen[key], line)
            seen[key] = line
        return super().construct_mapping(node, deep)


class _Loader:
    """Validation with the config file's path at hand for every message."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.base = path.parent

    def fail(self, key: str, problem: str, hint: str = "") -> ConfigError:
        return ConfigError(str(self.path), key, problem, hint)

    def expect(self, key: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
        if isinstance(value, bool) and kind in (int, (int,)):
            raise self.fail(key, f"expected {what}, found {_type_name(value)}")
        if not isinstance(value, kind):
            raise self.fail(key, f"expected {what}, found {_type_name(value)} {shown(value)}")
        return value

    def path_text(self, key: str, value: Any, what: str) -> str:
        """A path as written: a non-empty string (``""`` would mean the campaign folder)."""
        text = self.expect(key, value, str, what)
        if not text:
            raise self.fail(key, f"expected {what}, found an empty string", "or leave the key out")
        longest = max(Path(text).parts, key=lambda part: len(part.encode()), default="")
        if len(longest.encode()) > NAME_MAX:
            raise self.fail(
                key,
                f"expected {what}, found a name of {len(longest.encode())} bytes ({cut(longest)})",
                f"the file system takes {NAME_MAX}",
            )
        return text

    def existing_file(self, key: str, value: Any) -> Path:
        text = self.path_text(key, value, "a file path")
        path = self.base / text
        if not path.is_file():
            what, written = not_a_file(path), cut(text, SHOWN_PATH)
            problem = f"no such file: {written}" if what is None else f"{written} is {what}"
            raise self.fail(key, problem, f"paths are relative to {self.base}")
        return path.resolve()

    def label_map(self, key: str, value: Any) -> tuple[tuple[str, str], ...]:
        """A run's ``label_map:``: a mapping ``{PER: PESSOA}``, or what ``--label-map``
        takes (a file, relative to the configuration, or ``PER=PESSOA,LOC=LOCAL``)."""
        if value is None:
            return ()
        if isinstance(value, Mapping):
            if not all(
                isinstance(k, str) and isinstance(v, str) and k and v for k, v in value.items()
            ):
                raise self.fail(key, "expected a mapping of labels to strings", "PER: PESSOA")
            return tuple(value.items())
        text = self.expect(key, value, str, "a mapping, a file or A=B,C=D")
        given = self.base / text
        try:
            return tuple(parse_label_map(str(given) if given.is_file() else text).items())
        except InputError as exc:  # a file's line, or the inline entry at fault
            where = f"{exc.path}, line {exc.line}: " if exc.path and exc.line else ""
            raise self.fail(key, f"{where}expected {exc.expected}, found {exc.found}") from None

    def runs(self, value: Any) -> tuple[RunSpec, ...]:
        entries = self.expect("runs", value, list, "a list of run paths, globs or mappings")
        runs: list[RunSpec] = []
        for i, entry in enumerate(entries):
            key = f"runs[{i}]"
            if isinstance(entry, str):
                matches = sorted(glob.glob(str(self.base / entry)))
                if not matches:
                    raise self.fail(
                        key, f"no file matches {shown(entry)}", f"relative to {self.base}"
                    )
                for match in matches:
                    what = not_a_file(Path(match))
                    if what is not None:
                        where = os.path.relpath(match, self.base)
                        raise self.fail(
                            key,
                            f"{shown(entry)} matches {what}: {where}",
                            "a run is a regular file; narrow the pattern, e.g. runs/*.xml",
                        )
                runs.extend(RunSpec(run_name(m), Path(m).resolve()) for m in matches)
            elif isinstance(entry, Mapping):
                self.key_names(key, entry)
                unknown = set(entry) - RUN_KEYS
                if unknown:
                    raise self.fail(
                        f"{key}.{cut(sorted(unknown)[0])}",
                        "unknown key",
                        f"known: {sorted(RUN_KEYS)}",
                    )
                if "path" not in entry:
                    raise self.fail(f"{key}.path", "missing", "each run mapping needs a path")
                path = self.existing_file(f"{key}.path", entry["path"])
                name = self.expect(f"{key}.name", entry.get("name", run_name(path)), str, "a name")
                veil = entry.get("veil")
                if veil is not None and not (isinstance(veil, str) and _VEIL_NAME.match(veil)):
                    self.veil(f"{key}.veil", veil)  # a name is checked against veils:
                fmt = entry.get("format")
                if fmt is not None and fmt not in PREDICTION_FORMATS:
                    raise self.fail(
                        f"{key}.format",
                        f"unknown predictions format {shown(fmt)}",
                        f"one of {', '.join(PREDICTION_FORMATS)} (leave it out for a HAREM run)",
                    )
                scheme = entry.get("scheme", "lenient")
                if scheme not in SCHEMES:
                    raise self.fail(
                        f"{key}.scheme",
                        f"unknown tag scheme {shown(scheme)}",
                        f"one of {', '.join(SCHEMES)}",
                    )
                only = self.expect(
                    f"{key}.only_predicted",
                    entry.get("only_predicted", False),
                    bool,
                    "true or false",
                )
                if only and fmt is None:
                    raise self.fail(
                        f"{key}.only_predicted", "only for predictions", "give the run a format"
                    )
                label_map = self.label_map(f"{key}.label_map", entry.get("label_map"))
                if label_map and fmt is None:
                    raise self.fail(
                        f"{key}.label_map", "only for predictions", "give the run a format"
                    )
                runs.append(RunSpec(name, path, veil, fmt, scheme, only, label_map=label_map))
            else:
                raise self.fail(key, f"expected a path or a mapping, found {_type_name(entry)}")
        if not runs:
            raise self.fail("runs", "empty", "list at least one system run")
        seen: set[str] = set()
        for i, run in enumerate(runs):
            if not _RUN_NAME.match(run.name):
                raise self.fail(
                    f"runs[{i}].name",
                    f"invalid run name {shown(run.name)}",
                    "letters, digits, '.', '_' and '-'",
                )
            if run.name.lower() in CAMPAIGN_FILES:  # a file system may ignore case
                raise self.fail(
                    f"runs[{i}].name",
                    f"run name {shown(run.name)} is the name of a file of the campaign's own",
                    f"the output folder holds {', '.join(sorted(CAMPAIGN_FILES))}; rename the run",
                )
            if run.name in seen:
                raise self.fail(
                    f"runs[{i}]",
                    f"duplicate run name {shown(run.name)}",
                    "give the runs distinct names",
                )
            seen.add(run.name)
        return tuple(runs)

    def key_names(self, key: str, mapping: Mapping) -> None:
        """Every key of a mapping is a setting's name (YAML also allows ``1:`` or ``true:``)."""
        for name in mapping:
            if not isinstance(name, str):
                raise self.fail(
                    key, f"expected setting names, found the {_type_name(name)} key {shown(name)}"
                )

    def check_name_lengths(self, campaign: Campaign, written: Sequence[Path]) -> None:
        """Every file the campaign writes has a name the file system takes (its temporary too).

        A run name of 200 characters passes the name pattern, then the file
        system refuses ``NAME.alinhado.avalida.total.alts.emir_relativo.ida.manifest.json``
        halfway through the build.
        """
        longest_allowed = NAME_MAX - _TEMPORARY_EXTRA
        in_folder: dict[Path, list[str]] = {}
        for path in written:
            in_folder.setdefault(path.parent, []).append(path.name)
        ceilings = {run.ceiling_of: run.name for run in campaign.ceiling_runs}
        for i, run in enumerate(campaign.runs):
            for name in (run.name, ceilings.get(run.name)):  # a ceiling's names are longer
                if name is None:
                    continue
                names = in_folder.get(campaign.output / name, [])
                longest = max([name, *names], key=lambda n: len(n.encode()))
                size = len(longest.encode())
                if size > longest_allowed:
                    raise self.fail(
                        f"runs[{i}].name",
                        f"run name {shown(run.name)} makes file names of {size} bytes "
                        f"({shown(longest)}), the file system takes {NAME_MAX}",
                        f"a run name of at most {longest_allowed - size + len(run.name.encode())}"
                        " bytes",
                    )

    def check_ceiling_names(self, campaign: Campaign) -> None:
        """No run is called as another's ceiling run (``NAME-ceiling``): their folders and
        summary rows would be one."""
        ceilings = {run.name for run in campaign.ceiling_runs}
        for i, run in enumerate(campaign.runs):
            if run.name in ceilings:
                raise self.fail(
                    f"runs[{i}].name",
                    f"run name {shown(run.name)} is the name of a model run's ceiling run",
                    "rename the run, or set ceilings: false",
                )

    def bootstrap(self, value: Any) -> int:
        """The resamples of the reports' bootstrap, 0 to :data:`MAX_RESAMPLES`."""
        bootstrap = self.expect("bootstrap", value, int, "a whole number")
        if not 0 <= bootstrap <= MAX_RESAMPLES:
            raise self.fail(
                "bootstrap",
                f"expected 0 to {MAX_RESAMPLES}, found {shown(bootstrap)}",
                "the default is 1000; 0 turns the intervals off",
            )
        return bootstrap

    def grid(self, value: Any) -> Path | None:
        """The category grid's path, read now: a file that is not a grid fails here, not in
        the semantic chain after every other stage has run."""
        if value is None:
            return None
        path = self.existing_file("grid", value)
        try:
            read_grid(path)
        except InputError as error:
            raise self.fail("grid", f"not a category grid: {error}") from None
        return path

    def veils(self, value: Any) -> tuple[NamedVeil, ...]:
        """``veils:``: ``official`` or a list of official names and ``{name, veil}`` mappings."""
        official = {v.name: v for v in official_veils()}
        if value == "official":
            return tuple(official.values())
        entries = self.expect("veils", value, list, "official or a list of named veils")
        if not entries:
            raise self.fail("veils", "empty", "list named veils, e.g. [total, pessoa], or official")
        chosen: list[NamedVeil] = []
        for i, entry in enumerate(entries):
            key = f"veils[{i}]"
            if entry == "official":
                chosen.extend(official.values())
            elif isinstance(entry, str):
                if entry not in official:
                    raise self.fail(
                        key,
                        f"unknown veil name {shown(entry)}",
                        f"one of official, {', '.join(official)}, or {{name: meu, veil: ...}}",
                    )
                chosen.append(official[entry])
            elif isinstance(entry, Mapping):
                self.key_names(key, entry)
                unknown = set(entry) - {"name", "veil"}
                if unknown or "name" not in entry or "veil" not in entry:
                    raise self.fail(
                        key,
                        "expected {name: ..., veil: ...}",
                        "e.g. {name: meu, veil: PESSOA:LOCAL}",
                    )
                name = self.expect(f"{key}.name", entry["name"], str, "a name")
                if not _VEIL_NAME.match(name) or name in ("proprio", *STYLES):
                    raise self.fail(
                        f"{key}.name",
                        f"invalid veil name {shown(name)}",
                        "lower-case letters, digits and _; not proprio nor a style name",
                    )
                chosen.append(NamedVeil(name, self.veil(f"{key}.veil", entry["veil"])))
            else:
                raise self.fail(
                    key, f"expected a veil name or a mapping, found {_type_name(entry)}"
                )
        names = [v.name for v in chosen]
        for name in names:
            if names.count(name) > 1:
                raise self.fail("veils", f"the veil name {shown(name)} is listed twice")
        return tuple(chosen)

    def named_run_veils(
        self, runs: tuple[RunSpec, ...], veils: tuple[NamedVeil, ...]
    ) -> tuple[RunSpec, ...]:
        """A run's ``veil:`` that names a veil becomes that veil; the name must be in ``veils:``."""
        by_name = {v.name: v for v in veils}
        resolved = []
        for run in runs:
            if run.veil is not None and _VEIL_NAME.match(run.veil):
                if run.veil not in by_name:
                    listed = ", ".join(by_name) if by_name else "none (no veils: key)"
                    raise self.fail(
                        f"runs[name={run.name}].veil",
                        f"names the veil {shown(run.veil)}, which veils: does not list",
                        f"listed: {cut(listed, 120)}",
                    )
                named = by_name[run.veil]
                run = dataclasses.replace(run, veil=named.veil, veil_name=named.name)
            resolved.append(run)
        return tuple(resolved)

    def veil(self, key: str, value: Any) -> str:
        """A veil in the Java syntax, parsed against the shipped grid."""
        text = self.expect(key, value, str, "a veil such as PESSOA:LOCAL")
        try:
            parse_veil(text, read_grid(), None)
        except InputError as exc:
            raise self.fail(
                key, f"expected {exc.expected}, found {cut(str(exc.found), 120)}"
            ) from None
        return text

    def output(self, value: Any) -> Path:
        """The output folder: a folder (or nothing yet) under a folder this process can write."""
        text = self.path_text("output", value, "a folder path")
        output = (self.base / text).resolve()
        if output.exists() and not output.is_dir():
            what = not_a_file(output) or "a file"
            raise self.fail(
                "output", f"is {what}, not a folder: {cut(text, SHOWN_PATH)}", "name a folder"
            )
        existing = output
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            raise self.fail(
                "output", f"cannot make {cut(text, SHOWN_PATH)} under the file {existing}"
            )
        try:
            with tempfile.TemporaryFile(dir=existing):
                pass
        except OSError as exc:
            problem = f"cannot write in {cut(text, SHOWN_PATH)}"
            raise self.fail("output", problem, f"{exc.strerror}: {existing}") from None
        return output

    def check_outputs_are_not_runs(self, data: Mapping, written: Sequence[Path]) -> None:
        """No file the pipeline writes may match a run glob: the next build would read it."""
        for i, entry in enumerate(data["runs"]):
            if not isinstance(entry, str):
                continue
            pattern = str(self.base / entry)
            for path in written:
                if glob_matches(pattern, path):
                    where = os.path.relpath(path, self.base)
                    output = cut(data["output"], SHOWN_PATH)
                    raise self.fail(
                        "output",
                        f"outputs written in {output} would be read as runs "
                        f"(runs[{i}] {shown(entry)} matches {where})",
                        "put the output folder out of the runs' patterns",
                    )

    def subsets(self, value: Any) -> tuple[Subset, ...]:
        names = self.expect("subsets", value, list, "a list of subset names")
        subsets = []
        for i, name in enumerate(names):
            self.expect(f"subsets[{i}]", name, str, "a subset name")
            subset = parse_subset(name)
            if subset is None:
                raise self.fail(
                    f"subsets[{i}]",
                    f"invalid subset {shown(name)}",
                    "total, a variant (pt), a genre (jornalistico), pt.jornalistico, selectivo",
                )
            subsets.append(subset)
        if not subsets:
            raise self.fail("subsets", "empty", "list at least one subset, e.g. [total]")
        if len({s.name for s in subsets}) != len(subsets):
            raise self.fail("subsets", "a subset is listed twice")
        return tuple(subsets)

    def scenarios(self, value: Any) -> tuple[str, ...]:
        names = self.expect("scenarios", value, list, "a list of scenarios")
        if not names:
            raise self.fail("scenarios", "empty", f"list at least one of {SCENARIOS}")
        for i, name in enumerate(names):
            if name not in SCENARIOS:
                raise self.fail(
                    f"scenarios[{i}]", f"unknown scenario {shown(name)}", f"one of {SCENARIOS}"
                )
        return tuple(dict.fromkeys(names))

    def load(self, data: Any) -> Campaign:
        if not isinstance(data, Mapping):
            raise self.fail("(top)", f"expected a mapping of settings, found {_type_name(data)}")
        self.key_names("(top)", data)
        unknown = set(data) - TOP_LEVEL_KEYS
        if unknown:
            raise self.fail(
                cut(sorted(unknown)[0]), "unknown key", f"known: {sorted(TOP_LEVEL_KEYS)}"
            )
        for required in ("collection", "runs", "output"):
            if required not in data:
                raise self.fail(required, "missing", "collection, runs and output are required")
        meta = data.get("collection_meta")
        style = data.get("style", "harem")
        if style not in STYLES:
            raise self.fail("style", f"unknown style {shown(style)}", f"one of {STYLES}")
        workers = self.expect("workers", data.get("workers", 1), int, "a whole number")
        if workers < 1:
            raise self.fail("workers", f"expected at least 1, found {workers}")
        bootstrap = self.bootstrap(data.get("bootstrap", 1000))
        output = self.output(data["output"])
        weights = data.get("weights")
        if weights is not None:
            self.expect("weights", weights, str, "Emir weights id;α;β;γ such as '1;1;0.5;0.25'")
            try:
                parse_weights(weights, source="weights")
            except InputError as error:
                raise self.fail(
                    "weights", f"invalid weights {shown(weights)}", str(error)
                ) from None
        penalties = self.expect("penalties", data.get("penalties", False), bool, "true or false")
        charts = self.expect("charts", data.get("charts", True), bool, "true or false")
        try:
            tempo = tempo_modes_setting(data.get("tempo"))
        except ValueError as exc:
            raise self.fail("tempo", str(exc), "e.g. tempo: {modes: [1, 2, 3]}") from None
        browse = self.expect("browse", data.get("browse", True), bool, "true or false")
        ceilings = self.expect("ceilings", data.get("ceilings", True), bool, "true or false")
        veils = self.veils(data["veils"]) if "veils" in data else ()
        try:
            known = {v.name for v in (*official_veils(), *veils)}
            rerelem = rerelem_setting(data.get("rerelem"), sorted(known))
        except ValueError as exc:
            raise self.fail(
                "rerelem", str(exc), "e.g. rerelem: {scenarios: [todas], veils: [total]}"
            ) from None
        campaign = Campaign(
            source=self.path.resolve(),
            collection=self.existing_file("collection", data["collection"]),
            collection_meta=None if meta is None else self.existing_file("collection_meta", meta),
            runs=self.named_run_veils(self.runs(data["runs"]), veils),
            output=output,
            subsets=self.subsets(data.get("subsets", ["total"])),
            scenarios=self.scenarios(data.get("scenarios", list(SCENARIOS))),
            style=style,
            veil=self.veil("veil", data.get("veil", "*")),
            workers=workers,
            bootstrap=bootstrap,
            weights=weights,
            penalties=penalties,
            grid=self.grid(data.get("grid")),
            charts=charts,
            tempo=tempo,
            browse=browse,
            ceilings=ceilings,
            veils=veils,
            veil_style=data.get("style", "muc"),
            rerelem=rerelem,
        )
        for i, subset in enumerate(campaign.subsets):
            if subset.selective and not all(run.veil for run in campaign.runs):
                raise self.fail(
                    f"subsets[{i}]",
                    "a selective subset needs every run's declared veil",
                    "give each run a mapping with a veil",
                )
        self.check_ceiling_names(campaign)
        written = output_names(campaign)  # every name the build may write, made once
        self.check_name_lengths(campaign, written)
        self.check_outputs_are_not_runs(data, written)
        return campaign


TOP_FILES = ("summary.json", "summary.md", "summary.csv", "report.html")
"""The campaign's summary and report, at the top of its output folder."""
CAMPAIGN_FILES = frozenset(
    {*TOP_FILES, *(f"{name}{MANIFEST_SUFFIX}" for name in TOP_FILES), CAMPAIGN_MANIFEST}
)
"""The names of the files a campaign writes at the top of its output folder, beside the
runs' folders: a run may not be called so."""


def not_a_file(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (through links), in words; None when
    it is one."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            return f"a dangling symbolic link (to {shown(os.readlink(path))})"
        return None if not path.exists() else "unreadable"
    except OSError as error:
        return f"unreadable ({error.strerror})"
    kinds = (
        (stat.S_ISREG, None),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    for test, name in kinds:
        if test(mode):
            return name
    return "not a regular file"


def output_names(campaign: Campaign) -> list[Path]:
    """Every file and folder a build of ``campaign`` may write (the HAREM names, manifests)."""
    names = [campaign.output / name for name in TOP_FILES]
    whole = [campaign.output / CAMPAIGN_MANIFEST]
    rerelem_plan = campaign_rerelem(campaign.rerelem, campaign.collection)
    written_runs = campaign.scored_runs
    for run in written_runs:
        folder = campaign.output / run.name
        base = f"{run.name}.alinhado.avalida"
        files = [f"{run.name}.alinhado", f"{run.name}.aligner.stderr", base]
        if run.format:
            files += [f"{run.name}.run", f"{run.name}.run.import.stderr"]
        if run.ceiling_of:
            files.append(run.path.name)
        for subset in campaign.subsets:
            veus_names = [f"{base}.{subset.name}"]
            if campaign.style != "harem":
                veus_names.append(f"{base}.{subset.name}.{campaign.style}")
            for veus in veus_names:
                files += [veus, f"{veus}.altida", f"{veus}.ida2id", f"{veus}.ida2id.json"]
            alts = f"{veus_names[-1]}.alts"  # the semantic chain, in the campaign's style
            emir = [f"{alts}.emir", f"{alts}.emir.altrel", f"{alts}.emir_relativo"]
            files += [alts, *emir, *(f"{e}.ida" for e in emir), *(f"{e}.ida.json" for e in emir)]
            files += tempo_output_names(veus_names[-1], campaign.tempo)
            for veil in campaign.veils:
                veiled = f"{base}.{subset.name}.{veil.name}"
                alts = f"{veiled}.alts"
                emir = [f"{alts}.emir", f"{alts}.emir.altrel", f"{alts}.emir_relativo"]
                files += [veiled, alts, *emir, *(f"{e}.ida" for e in emir)]
                files += [f"{e}.ida.json" for e in emir]
                files += tempo_output_names(veiled, campaign.tempo)
            for scenario in Scenario:
                scored = f"{base}.{subset.name}.{scenario.short}"
                files += [f"{scored}.{ext}" for ext in ("vizir", "altmor", "ida2mor")]
                files.append(f"{scored}.ida2mor.json")
        files += rerelem_output_names(f"{base}.{campaign.subsets[0].name}", rerelem_plan)
        if campaign.browse:  # the alignment pages: a folder, its manifest beside it
            files += ["browse", f"browse{MANIFEST_SUFFIX}"]
        names.append(folder)
        names += [folder / name for name in files]
    anchors = [n for n in names if n.suffix not in ("", ".json", ".stderr")]
    anchors.append(campaign.output / "summary.json")  # the JSONs that are a stage's anchor
    anchors += [run.path for run in written_runs if run.ceiling_of]
    return [*names, *whole, *(Path(f"{n}{MANIFEST_SUFFIX}") for n in anchors)]


def glob_matches(pattern: str, path: Path) -> bool:
    """Whether ``glob.glob(pattern)`` would list ``path`` if it existed (no ``**`` recursion)."""
    parts, wanted = Path(pattern).parts, path.parts
    if len(parts) != len(wanted):
        return False
    for part, name in zip(parts, wanted, strict=True):
        if name.startswith(".") and not part.startswith("."):
            return False  # glob's wildcards skip hidden names
        if not fnmatch.fnmatchcase(name, part):
            return False
    return True


def load_campaign(path: str | Path) -> Campaign:
    """Read and validate ``pipeline.yaml``; raise ``ConfigError`` on the first problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), "(file)", "no such file", "pass --config PATH") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), "(file)", f"unreadable: {exc}") from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader)
    except _DuplicateKey as exc:
        raise ConfigError(
            str(path),
            exc.key,
            f"given twice, on lines {exc.first} and {exc.second}",
            "YAML would keep the second silently; keep one",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "(file)"
        problem = getattr(exc, "problem", exc)
        raise ConfigError(str(path), where, f"not valid YAML: {problem}") from None
    except RecursionError:
        raise ConfigError(str(path), "(file)", "nested too deep to be a campaign") from None
    except ValueError as exc:  # a number of more digits than Python converts (4,300)
        raise ConfigError(str(path), "(file)", f"not valid YAML: {cut(str(exc), 120)}") from None
    if _count_values(data, MAX_VALUES) > MAX_VALUES:
        raise ConfigError(
            str(path),
            "(file)",
            f"holds more than {MAX_VALUES} values, each alias counted where it is used",
            "a campaign needs a few hundred: a YAML alias bomb?",
        )
    try:
        return _Loader(path).load(data)
    except OSError as exc:  # a path the checks could not even look at (permissions, a loop)
        where = cut(str(exc.filename), SHOWN_PATH) if exc.filename else "a path"
        raise ConfigError(str(path), "(paths)", f"cannot look at {where}: {exc.strerror}") from None
