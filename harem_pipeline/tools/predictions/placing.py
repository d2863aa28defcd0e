"""One document's placed entities: character offsets laid on the collection's text, what
is kept and dropped, and the summary of an import.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_json import CharDocument
from harem_pipeline.model import Document
from harem_pipeline.tools.predictions.chars import (
    TextMap,
    align_dense,
    decode_references,
    snap_to_references,
)
from harem_pipeline.tools.predictions.labels import Label, known_categories, parse_label

_WARNINGS_SHOWN = 20


class Placed(NamedTuple):
    """A predicted entity on the collection's text: ``start:end`` and its label."""

    start: int
    end: int
    label: Label


@dataclass(slots=True)
class ImportSummary:
    """What an import did: counts, and a warning per entity dropped."""

    documents: int = 0
    predicted: int = 0
    absent: int = 0
    entities: int = 0
    dropped: Counter = field(default_factory=Counter)
    repairs: int = 0
    foreign_labels: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    absent_as: str = "without entities"
    """How absent documents were written (``--only-predicted``: empty, not scored)."""
    label_map: dict[str, str] = field(default_factory=dict)
    """A model's labels renamed before they are read (``--label-map``: ``PER`` → ``PESSOA``)."""

    def drop(self, reason: str, message: str) -> None:
        self.dropped[reason] += 1
        self.warnings.append(message)

    def format(self, shown: int = _WARNINGS_SHOWN) -> str:
        """The summary printed on stderr: warnings (the first ``shown``), then the counts."""
        lines = [f"warning: {w}" for w in self.warnings[:shown]]
        if len(self.warnings) > shown:
            lines.append(f"warning: ... and {len(self.warnings) - shown} more")
        dropped = sum(self.dropped.values())
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(self.dropped.items()))
        lines.append(
            f"{self.documents} documents ({self.predicted} predicted, {self.absent} absent from "
            f"the predictions, written {self.absent_as}); {self.entities} entities imported, "
            f"{dropped} dropped" + (f" ({why})" if why else "")
        )
        if self.repairs:
            lines.append(
                f"{self.repairs} tag sequences broke the tagging scheme (read as conlleval)"
            )
        if self.foreign_labels:
            names = ", ".join(f"{k} ({n})" for k, n in self.foreign_labels.most_common(10))
            lines.append(f"categories outside the HAREM grids: {names}")
        return "\n".join(lines) + "\n"


def paragraph_boundaries(doc: Document) -> list[int]:
    return sorted({x for region in doc.paragraphs for x in region})


def _label(raw: str, summary: ImportSummary, path: str | None, line: int, docid: str) -> Label:
    try:
        label = parse_label(summary.label_map.get(raw, raw))
    except ValueError as exc:
        raise bad_label(exc, path, line, docid) from None
    _count_foreign(label, summary)
    return label


def bad_label(exc: ValueError, path: str | None, line: int, docid: str) -> InputError:
    return InputError(path, "a label usable as a HAREM category", str(exc), line=line, docid=docid)


def _count_foreign(label: Label, summary: ImportSummary) -> None:
    for cat in foreign_categories(label):
        summary.foreign_labels[cat] += 1


@lru_cache(maxsize=4096)
def foreign_categories(label: Label) -> tuple[str, ...]:
    """The label's categories outside the HAREM grids (found once per label)."""
    known = known_categories()
    return tuple(cat for cat in label.categories if cat not in known)


# Why a placed entity cannot be written: the reason counted, and the warning's words.
_CROSSING = ("crossing a paragraph", "crosses a paragraph boundary")
_OVERLAPPING = (
    "overlapping once placed",
    "overlaps the entity before it once placed on the collection's text",
)


def keep_placed(
    text: str,
    placed: list[Placed],
    start: int,
    end: int,
    label: Label,
    boundaries: Sequence[int],
    refs: bool = True,
) -> tuple[str, str] | None:
    """Append the entity ``start:end`` to ``placed`` unless it cannot be written.

    Returns why not (``_CROSSING``, ``_OVERLAPPING``), None when kept: the
    caller names the entity in the warning only then.  ``refs``: whether the
    text may hold a character reference (False: none to snap to).
    """
    if refs:
        start, end = snap_to_references(text, start, end)
    if boundaries:
        k = bisect.bisect_right(boundaries, start)
        if k < len(boundaries) and boundaries[k] < end:
            return _CROSSING
    if placed and start < placed[-1].end:
        return _OVERLAPPING
    placed.append(Placed(start, end, label))
    return None


def drop_placed(summary: ImportSummary, why: tuple[str, str], docid: str, shown: str) -> None:
    reason, words = why
    summary.drop(reason, f"{docid}: {shown} {words}")


def _decoded_view(text: str, source: TextMap) -> tuple[TextMap, list[int]] | None:
    """When the predictions' text is the collection's with its character references read
    (the published HAREM JSON files; white space may differ): that text's map, and for
    each of its offsets the collection's.  None otherwise."""
    if "&" not in text:
        return None
    plain, where = decode_references(text)
    plain_map = TextMap(plain)
    if plain_map.dense != source.dense:
        return None
    inverse = [0] * (len(plain) + 1)
    for raw, offset in enumerate(where):
        inverse[offset] = raw  # the last: after a whole reference, not inside it
    return plain_map, inverse


def place_char_document(
    doc: Document, pred: CharDocument, summary: ImportSummary, path: str | None = None
) -> list[Placed]:
    """The entities of a character-offset document placed on the collection document."""
    target = TextMap(doc.text)
    if pred.text is None or pred.text == doc.text:
        source, alignment = target, None
    else:
        source = TextMap(pred.text)
        alignment = (
            None if source.dense == target.dense else align_dense(source.dense, target.dense)
        )
    decoded = None if alignment is None else _decoded_view(doc.text, source)
    if decoded is not None:
        alignment = None  # the text with its references read: mapped exactly
    text = doc.text if pred.text is None else pred.text
    boundaries = paragraph_boundaries(doc)
    placed: list[Placed] = []
    for entity in pred.entities:
        if pred.text is None and entity.end > len(doc.text):
            raise InputError(
                path,
                f"an end offset within the collection document's {len(doc.text)} characters",
                f"{entity.start}..{entity.end}",
                line=pred.line,
                docid=pred.docid,
            )
        label = _label(entity.label, summary, path, pred.line, pred.docid)
        shown = (
            f"{entity.label} {text[entity.start : entity.end]!r} at {entity.start}..{entity.end}"
        )
        first, stop = source.to_dense(entity.start), source.to_dense(entity.end)
        if stop <= first:
            summary.drop("blank", f"{pred.docid}: {shown} holds no visible character")
            continue
        if decoded is not None:
            plain, inverse = decoded
            raw_start = inverse[plain.to_text(first)]
            raw_end = inverse[plain.to_text(stop - 1) + 1]
            first, last = target.to_dense(raw_start), target.to_dense(raw_end) - 1
        elif alignment is not None:
            mapped_first = alignment.first_at_or_after(first, stop)
            mapped_last = alignment.last_before(stop, first)
            if mapped_first is None or mapped_last is None or mapped_last < mapped_first:
                summary.drop(
                    "not in the collection's text",
                    f"{pred.docid}: {shown} is on text the collection does not have",
                )
                continue
            first, last = mapped_first, mapped_last
        else:
            last = stop - 1
        start, end = target.text_span(first, last)
        why = keep_placed(doc.text, placed, start, end, label, boundaries)
        if why is not None:
            drop_placed(summary, why, doc.docid, shown)
    return placed
