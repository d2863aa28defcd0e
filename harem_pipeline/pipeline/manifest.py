"""Completion by content: a manifest beside each output pins what made it.

A stage's result is *complete* only when its manifest exists and records the
same stage, parameters, scoring version and SHA-256 digests of every input as
now — Luigi's "the output file exists" is not enough, and mtimes lie.
Hashing is the only cost of an unchanged rerun; a digest recorded with the
same size and mtime is reused rather than recomputed (black's cache rule).

The manifest is written last, atomically, after every output file is in
place, so a killed process never leaves a result that passes as complete.

A whole campaign has one more manifest, ``campaign.manifest.json`` in its
output folder: written when every stage was found complete, it records the
campaign's settings and the size and mtime of every file those checks read
(manifests, inputs, outputs, and the names of outputs a stage did not
write).  While all of them are as recorded, every stage's own check would
answer "complete" again, so an unchanged campaign is recognised with one
``stat`` per file instead of one manifest read and check per stage.

Inside a campaign both kinds of manifest name files by where they are in
the campaign (:class:`Places`), not by absolute path: a file in the output
folder relative to that folder, one in the folder of ``pipeline.yaml``
relative to it (a file outside both, a shared collection, by its absolute
path: it stays where it is when the campaign moves).  A campaign copied or
moved elsewhere (``cp -a``), or its output folder moved and ``output:``
changed to match, is still complete: nothing reruns while the contents are
the same.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harem_pipeline import SCORING_VERSION
from harem_pipeline.pipeline.signature import sha256_file
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import sync_to_disk, write_text_atomic

MANIFEST_SUFFIX = ".manifest.json"
CAMPAIGN_MANIFEST = "campaign.manifest.json"

OUTPUT_KEY = "$output"
"""How a campaign manifest names its output folder: ``$output/run/run.alinhado``."""


@dataclass(frozen=True, slots=True)
class Places:
    """Where a campaign's manifests name their files from: its two folders.

    ``campaign`` is the folder of ``pipeline.yaml`` (the one its paths are
    relative to), ``output`` the output folder (both absolute).
    """

    campaign: Path
    output: Path

    def key(self, path: PathLike) -> str:
        """The name a manifest gives ``path``: ``$output/…`` inside the output folder,
        relative inside the campaign's folder, absolute outside both (a shared collection
        stays where it is when the campaign moves)."""
        absolute = Path(os.path.abspath(path))
        if absolute == self.output:
            return OUTPUT_KEY
        if absolute.is_relative_to(self.output):
            return f"{OUTPUT_KEY}/{absolute.relative_to(self.output).as_posix()}"
        if absolute.is_relative_to(self.campaign):
            relative = absolute.relative_to(self.campaign).as_posix()
            return f"./{relative}" if relative.startswith(OUTPUT_KEY) else relative
        return str(absolute)

    def path(self, key: str) -> Path:
        """The file ``key`` names (the inverse of :meth:`key`)."""
        if key == OUTPUT_KEY:
            return self.output
        if key.startswith(OUTPUT_KEY + "/"):
            return self.output / key.removeprefix(OUTPUT_KEY + "/")
        return self.campaign / key  # an absolute key stays itself


def _key(places: Places | None, path: PathLike) -> str:
    """``path`` as a manifest names it: by :class:`Places`, or as given outside a campaign."""
    return str(path) if places is None else places.key(path)


def _path(places: Places | None, key: str) -> str:
    return key if places is None else str(places.path(key))


Stamp = tuple[int, int] | None
"""A file's size and mtime in nanoseconds, None when there is no such file."""
CONFLICT: Stamp = (-1, -1)
"""Recorded when one file was seen with two stamps during one check: never matches."""


@dataclass(frozen=True, slots=True)
class FileDigest:
    """What identifies a file's content, plus the stat data that lets us skip rehashing."""

    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True, slots=True)
class Manifest:
    """The recipe of one stage result: inputs by content, parameters, outputs."""

    stage: str
    params: Mapping[str, Any]
    scoring_version: str
    inputs: Mapping[str, FileDigest]
    outputs: Mapping[str, FileDigest] = field(default_factory=dict)
    signature: str | None = None

    def to_json(self) -> str:
        data = {
            "stage": self.stage,
            "params": dict(self.params),
            "scoring_version": self.scoring_version,
            "inputs": {
                path: {"size": d.size, "mtime_ns": d.mtime_ns, "sha256": d.sha256}
                for path, d in sorted(self.inputs.items())
            },
            "outputs": {
                path: {"size": d.size, "mtime_ns": d.mtime_ns, "sha256": d.sha256}
                for path, d in sorted(self.outputs.items())
            },
            "signature": self.signature,
        }
        return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        return cls(
            stage=data["stage"],
            params=data["params"],
            scoring_version=data["scoring_version"],
            inputs={
                path: FileDigest(d["size"], d["mtime_ns"], d["sha256"])
                for path, d in data["inputs"].items()
            },
            outputs={
                path: FileDigest(d["size"], d["mtime_ns"], d["sha256"])
                for path, d in data.get("outputs", {}).items()
            },
            signature=data.get("signature"),
        )


def manifest_path(anchor: PathLike) -> Path:
    """The manifest that belongs to the output ``anchor``."""
    anchor = Path(anchor)
    return anchor.with_name(anchor.name + MANIFEST_SUFFIX)


def read_manifest(anchor: PathLike) -> Manifest | None:
    """The manifest of ``anchor``, or None when missing or unreadable (= not complete)."""
    try:
        return Manifest.from_json(manifest_path(anchor).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def digest_file(path: PathLike, known: FileDigest | None = None) -> FileDigest:
    """The digest of ``path``, reusing ``known`` when size and mtime are unchanged."""
    stat = os.stat(path)
    if known is not None and known.size == stat.st_size and known.mtime_ns == stat.st_mtime_ns:
        return known
    return FileDigest(stat.st_size, stat.st_mtime_ns, sha256_file(path))


def digest_inputs(
    paths: Iterable[PathLike],
    previous: Manifest | None = None,
    places: Places | None = None,
) -> dict[str, FileDigest]:
    """Digests of every input, keyed as a manifest names them (see :class:`Places`)."""
    known = previous.inputs if previous else {}
    digests = {}
    for path in paths:
        key = _key(places, path)
        digests[key] = digest_file(path, known.get(key))
    return digests


def _normalise(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters as they round-trip through JSON, so comparisons are fair."""
    return json.loads(json.dumps(dict(params), sort_keys=True, default=str))


def file_stamp(path: PathLike) -> Stamp:
    """The size and mtime of ``path`` now, None when it does not exist."""
    try:
        stat = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return stat.st_size, stat.st_mtime_ns


def add_stamps(into: dict[str, Stamp], stamps: Mapping[str, Stamp]) -> None:
    """Add ``stamps`` to ``into``; a file seen with two different stamps gets ``CONFLICT``."""
    for path, stamp in stamps.items():
        if into.setdefault(path, stamp) != stamp:
            into[path] = CONFLICT


def check_complete(
    anchor: PathLike,
    stage: str,
    params: Mapping[str, Any],
    inputs: Iterable[PathLike],
    places: Places | None = None,
) -> dict[str, Stamp] | None:
    """Whether ``anchor``'s manifest matches the stage, parameters and input contents now:
    the stamps of the files it judged, None when not complete.

    Every output listed in the manifest must also still have the recorded
    content: a deleted, truncated or edited output means the stage must run.
    The stamps are those of the very ``stat`` calls the judgement rests on
    (the manifest's is taken before it is read), so a file that changes
    afterwards no longer has the stamp recorded here.  They are keyed by
    path, as the files are now.
    """
    try:
        stamps: dict[str, Stamp] = {str(manifest_path(anchor)): file_stamp(manifest_path(anchor))}
    except OSError:
        return None
    manifest = read_manifest(anchor)
    if manifest is None or manifest.stage != stage:
        return None
    if manifest.scoring_version != SCORING_VERSION:
        return None
    if _normalise(manifest.params) != _normalise(params):
        return None
    input_paths = {_key(places, p): str(p) for p in inputs}
    if sorted(manifest.inputs) != sorted(input_paths):
        return None
    try:
        current = digest_inputs(input_paths.values(), manifest, places)
        if any(current[key].sha256 != manifest.inputs[key].sha256 for key in input_paths):
            return None
        outputs = {
            key: digest_file(_path(places, key), known) for key, known in manifest.outputs.items()
        }
    except OSError:
        return None
    if any(outputs[key].sha256 != known.sha256 for key, known in manifest.outputs.items()):
        return None
    for key, digest in current.items():
        add_stamps(stamps, {input_paths[key]: (digest.size, digest.mtime_ns)})
    for key, digest in outputs.items():
        add_stamps(stamps, {_path(places, key): (digest.size, digest.mtime_ns)})
    return stamps


def snapshot_inputs(
    anchor: PathLike,
    inputs: Iterable[PathLike],
    places: Places | None = None,
) -> dict[str, FileDigest]:
    """The digests of a stage's inputs, taken *before* it runs.

    Taken before, so an input rewritten while the stage runs leaves a
    manifest that no longer matches, and the stage runs again.
    """
    return digest_inputs(inputs, read_manifest(anchor), places)


def write_manifest(
    anchor: PathLike,
    stage: str,
    params: Mapping[str, Any],
    inputs: Mapping[str, FileDigest],
    outputs: Iterable[PathLike],
    signature: str | None = None,
    places: Places | None = None,
) -> Manifest:
    """Record the recipe of a finished stage; call after every output is in place.

    ``inputs`` are the digests ``snapshot_inputs`` took before the stage ran.
    The outputs are flushed to the disk first, so that not even a power cut
    leaves a manifest declaring outputs that never reached it.
    """
    outputs = list(outputs)
    sync_to_disk(outputs)
    manifest = Manifest(
        stage=stage,
        params=_normalise(params),
        scoring_version=SCORING_VERSION,
        inputs=dict(inputs),
        outputs={_key(places, p): digest_file(p) for p in outputs},
        signature=signature,
    )
    write_text_atomic(manifest_path(anchor), manifest.to_json())
    return manifest


def _stamp_json(stamps: Mapping[str, Stamp], places: Places | None) -> dict[str, list[int] | None]:
    named = {_key(places, path): stamp for path, stamp in stamps.items()}
    return {key: None if s is None else list(s) for key, s in sorted(named.items())}


def write_campaign_manifest(
    path: PathLike,
    settings: Mapping[str, Any],
    stamps: Mapping[str, Stamp],
    places: Places | None = None,
) -> None:
    """Record that the campaign of ``settings`` was complete with its files as ``stamps``.

    ``stamps`` must have been taken by the checks that found it complete
    (``check_complete``), not afterwards.
    """
    data = {
        "scoring_version": SCORING_VERSION,
        "settings": _normalise(settings),
        "files": _stamp_json(stamps, places),
    }
    write_text_atomic(path, json.dumps(data, ensure_ascii=False) + "\n")


def campaign_manifest_matches(
    path: PathLike, settings: Mapping[str, Any], places: Places | None = None
) -> bool:
    """True when the campaign manifest at ``path`` has these settings and every file its stamp.

    Then every stage of the campaign is complete, as it was when the
    manifest was written; False means only "check stage by stage".
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        files = data["files"]
        if data["scoring_version"] != SCORING_VERSION or data["settings"] != _normalise(settings):
            return False
        return all(
            file_stamp(_path(places, name)) == (None if stamp is None else tuple(stamp))
            for name, stamp in files.items()
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False
