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
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harem_pipeline.errors import ConfigError, InputError
from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.pipeline.manifest import CAMPAIGN_MANIFEST
from harem_pipeline.stages.emir import parse_weights
from harem_pipeline.tools.predictions import FORMATS as PREDICTION_FORMATS

STYLES = ("harem", "muc", "relaxado")
SCENARIOS = ("absolute", "relative")
SCENARIO_SUFFIX = {"absolute": "abs", "relative": "rel"}
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
}
RUN_KEYS = {"path", "name", "veil", "format", "scheme", "only_predicted"}
_VARIANT = re.compile(r"^[a-z]{2}$")
_GENRE = re.compile(r"^[a-z_]{3,}$")
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True, slots=True)
class Subset:
    """One evaluation subset: documents by variant and genre, categories by veil."""

    name: str
    variant: str | None = None
    genre: str | None = None
    selective: bool = False


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

    def run(self, name: str) -> RunSpec:
        """The run called ``name`` (a ConfigError naming the known ones otherwise)."""
        for run in self.runs:
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
            raise self.fail(key, f"expected {what}, found {_type_name(value)} {value!r}")
        return value

    def existing_file(self, key: str, value: Any) -> Path:
        text = self.expect(key, value, str, "a file path")
        path = (self.base / text).resolve()
        if not path.is_file():
            raise self.fail(key, f"no such file: {text}", f"paths are relative to {self.base}")
        return path

    def runs(self, value: Any) -> tuple[RunSpec, ...]:
        entries = self.expect("runs", value, list, "a list of run paths, globs or mappings")
        runs: list[RunSpec] = []
        for i, entry in enumerate(entries):
            key = f"runs[{i}]"
            if isinstance(entry, str):
                matches = sorted(glob.glob(str(self.base / entry)))
                if not matches:
                    raise self.fail(key, f"no file matches {entry!r}", f"relative to {self.base}")
                for match in matches:
                    if not Path(match).is_file():
                        shown = os.path.relpath(match, self.base)
                        raise self.fail(
                            key,
                            f"{entry!r} matches a folder: {shown}",
                            "a run is a file; narrow the pattern, e.g. runs/*.xml",
                        )
                runs.extend(RunSpec(run_name(m), Path(m).resolve()) for m in matches)
            elif isinstance(entry, Mapping):
                unknown = set(entry) - RUN_KEYS
                if unknown:
                    raise self.fail(
                        f"{key}.{sorted(unknown)[0]}", "unknown key", f"known: {sorted(RUN_KEYS)}"
                    )
                if "path" not in entry:
                    raise self.fail(f"{key}.path", "missing", "each run mapping needs a path")
                path = self.existing_file(f"{key}.path", entry["path"])
                name = self.expect(f"{key}.name", entry.get("name", run_name(path)), str, "a name")
                veil = entry.get("veil")
                if veil is not None:
                    self.veil(f"{key}.veil", veil)
                fmt = entry.get("format")
                if fmt is not None and fmt not in PREDICTION_FORMATS:
                    raise self.fail(
                        f"{key}.format",
                        f"unknown predictions format {fmt!r}",
                        f"one of {', '.join(PREDICTION_FORMATS)} (leave it out for a HAREM run)",
                    )
                scheme = entry.get("scheme", "lenient")
                if scheme not in SCHEMES:
                    raise self.fail(
                        f"{key}.scheme",
                        f"unknown tag scheme {scheme!r}",
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
                runs.append(RunSpec(name, path, veil, fmt, scheme, only))
            else:
                raise self.fail(key, f"expected a path or a mapping, found {_type_name(entry)}")
        if not runs:
            raise self.fail("runs", "empty", "list at least one system run")
        seen: set[str] = set()
        for i, run in enumerate(runs):
            if not _RUN_NAME.match(run.name):
                raise self.fail(
                    f"runs[{i}].name",
                    f"invalid run name {run.name!r}",
                    "letters, digits, '.', '_' and '-'",
                )
            if run.name in seen:
                raise self.fail(
                    f"runs[{i}]", f"duplicate run name {run.name!r}", "give the runs distinct names"
                )
            seen.add(run.name)
        return tuple(runs)

    def veil(self, key: str, value: Any) -> str:
        """A veil in the Java syntax, parsed against the shipped grid."""
        text = self.expect(key, value, str, "a veil such as PESSOA:LOCAL")
        try:
            parse_veil(text, read_grid(), None)
        except InputError as exc:
            raise self.fail(key, f"expected {exc.expected}, found {exc.found}") from None
        return text

    def output(self, value: Any) -> Path:
        """The output folder: a folder (or nothing yet) under a folder this process can write."""
        text = self.expect("output", value, str, "a folder path")
        output = (self.base / text).resolve()
        if output.exists() and not output.is_dir():
            raise self.fail("output", f"is a file, not a folder: {text}", "name a folder")
        existing = output
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            raise self.fail("output", f"cannot make {text} under the file {existing}")
        try:
            with tempfile.TemporaryFile(dir=existing):
                pass
        except OSError as exc:
            problem = f"cannot write in {text}"
            raise self.fail("output", problem, f"{exc.strerror}: {existing}") from None
        return output

    def check_outputs_are_not_runs(self, data: Mapping, campaign: Campaign) -> None:
        """No file the pipeline writes may match a run glob: the next build would read it."""
        written = output_names(campaign)
        for i, entry in enumerate(data["runs"]):
            if not isinstance(entry, str):
                continue
            pattern = str(self.base / entry)
            for path in written:
                if glob_matches(pattern, path):
                    shown = os.path.relpath(path, self.base)
                    raise self.fail(
                        "output",
                        f"outputs written in {data['output']} would be read as runs "
                        f"(runs[{i}] {entry!r} matches {shown})",
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
                    f"invalid subset {name!r}",
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
                    f"scenarios[{i}]", f"unknown scenario {name!r}", f"one of {SCENARIOS}"
                )
        return tuple(dict.fromkeys(names))

    def load(self, data: Any) -> Campaign:
        if not isinstance(data, Mapping):
            raise self.fail("(top)", f"expected a mapping of settings, found {_type_name(data)}")
        unknown = set(data) - TOP_LEVEL_KEYS
        if unknown:
            raise self.fail(sorted(unknown)[0], "unknown key", f"known: {sorted(TOP_LEVEL_KEYS)}")
        for required in ("collection", "runs", "output"):
            if required not in data:
                raise self.fail(required, "missing", "collection, runs and output are required")
        meta = data.get("collection_meta")
        style = data.get("style", "harem")
        if style not in STYLES:
            raise self.fail("style", f"unknown style {style!r}", f"one of {STYLES}")
        workers = self.expect("workers", data.get("workers", 1), int, "a whole number")
        if workers < 1:
            raise self.fail("workers", f"expected at least 1, found {workers}")
        bootstrap = self.expect("bootstrap", data.get("bootstrap", 1000), int, "a whole number")
        if bootstrap < 0:
            raise self.fail("bootstrap", f"expected 0 or more, found {bootstrap}")
        output = self.output(data["output"])
        weights = data.get("weights")
        if weights is not None:
            self.expect("weights", weights, str, "Emir weights id;α;β;γ such as '1;1;0.5;0.25'")
            try:
                parse_weights(weights, source="weights")
            except InputError as error:
                raise self.fail("weights", f"invalid weights {weights!r}", str(error)) from None
        penalties = self.expect("penalties", data.get("penalties", False), bool, "true or false")
        grid = data.get("grid")
        charts = self.expect("charts", data.get("charts", True), bool, "true or false")
        campaign = Campaign(
            source=self.path.resolve(),
            collection=self.existing_file("collection", data["collection"]),
            collection_meta=self.existing_file("collection_meta", meta) if meta else None,
            runs=self.runs(data["runs"]),
            output=output,
            subsets=self.subsets(data.get("subsets", ["total"])),
            scenarios=self.scenarios(data.get("scenarios", list(SCENARIOS))),
            style=style,
            veil=self.veil("veil", data.get("veil", "*")),
            workers=workers,
            bootstrap=bootstrap,
            weights=weights,
            penalties=penalties,
            grid=self.existing_file("grid", grid) if grid else None,
            charts=charts,
        )
        for i, subset in enumerate(campaign.subsets):
            if subset.selective and not all(run.veil for run in campaign.runs):
                raise self.fail(
                    f"subsets[{i}]",
                    "a selective subset needs every run's declared veil",
                    "give each run a mapping with a veil",
                )
        self.check_outputs_are_not_runs(data, campaign)
        return campaign


def output_names(campaign: Campaign) -> list[Path]:
    """Every file and folder a build of ``campaign`` may write (the HAREM names, manifests)."""
    top = ["summary.json", "summary.md", "summary.csv", "report.html"]
    names = [campaign.output / name for name in top]
    whole = [campaign.output / CAMPAIGN_MANIFEST]
    for run in campaign.runs:
        folder = campaign.output / run.name
        base = f"{run.name}.alinhado.avalida"
        files = [f"{run.name}.alinhado", f"{run.name}.aligner.stderr", base]
        for subset in campaign.subsets:
            veus_names = [f"{base}.{subset.name}"]
            if campaign.style != "harem":
                veus_names.append(f"{base}.{subset.name}.{campaign.style}")
            for veus in veus_names:
                files += [veus, f"{veus}.altida", f"{veus}.ida2id", f"{veus}.ida2id.json"]
            for suffix in SCENARIO_SUFFIX.values():
                scored = f"{base}.{subset.name}.{suffix}"
                files += [f"{scored}.{ext}" for ext in ("vizir", "altmor", "ida2mor")]
                files.append(f"{scored}.ida2mor.json")
        names.append(folder)
        names += [folder / name for name in files]
    return [*names, *whole, *(Path(f"{n}.manifest.json") for n in names if n.suffix != "")]


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
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "(file)"
        problem = getattr(exc, "problem", exc)
        raise ConfigError(str(path), where, f"not valid YAML: {problem}") from None
    return _Loader(path).load(data)
