"""Our ``harem export --format harem-json`` beside a published release, document by document.

The BERTimbau release (``neuralmind-ai/portuguese-bert``, ``ner_evaluation/data/``)
is what Portuguese NER papers train and test on; the export is meant to
reproduce it.  This compares the two on the documents the release holds:

* ``text``: ``doc_text`` identical;
* ``entities``: the entity lists identical (offsets, labels, order);
* ``blank``: texts that differ only by white space the release dropped
  (ours has characters the release lacks, each of them white space);
* ``mapped``: of those, documents whose entities are identical once our
  offsets are moved across the dropped characters.

Run it on a whole release (the counts are what the README quotes)::

    python -m tests.helpers.published_layout CD RELEASE.json [--alt best] [--scenario total]
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.tools.export import export_documents, export_text

Span = tuple[int, int, str]


@dataclass
class Comparison:
    """Which of the release's documents the export reproduces, and how."""

    documents: int = 0
    text: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    blank: list[str] = field(default_factory=list)
    mapped: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    order: list[str] = field(default_factory=list)

    def differing(self) -> list[str]:
        """Documents whose entity lists differ, even across dropped white space."""
        same = set(self.entities) | set(self.mapped)
        return [d for d in self.order if d not in same and d not in self.missing]

    def format(self) -> str:
        """The counts, one per line, then the documents that differ."""
        lines = [
            f"documents: {self.documents}",
            f"doc_text identical: {len(self.text)}",
            f"doc_text differing only by white space the release dropped: {len(self.blank)}"
            + (f" ({', '.join(self.blank)})" if self.blank else ""),
            f"entities identical: {len(self.entities)}",
            f"entities identical across the dropped white space: {len(self.mapped)}",
            f"entities differing: {len(self.differing())}"
            + (f" ({', '.join(self.differing())})" if self.differing() else ""),
        ]
        if self.missing:
            lines.append(f"not in the collection: {', '.join(self.missing)}")
        return "\n".join(lines) + "\n"


def spans(doc: dict) -> list[Span]:
    """A harem-json document's entities as (start, end, label), in the file's order."""
    return [(e["start_offset"], e["end_offset"], e["label"]) for e in doc["entities"]]


def dropped_blanks(ours: str, theirs: str) -> list[int] | None:
    """Positions of ``ours`` the release left out, when all it did was drop white space.

    None when the texts differ in any other way (an insertion, a replacement,
    a dropped character that is not white space).
    """
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    dropped: list[int] = []
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag != "delete" or ours[i1:i2].strip():
            return None
        dropped.extend(range(i1, i2))
    return dropped


def moved(entities: list[Span], dropped: list[int]) -> list[Span]:
    """Our entities with their offsets moved onto the text without the dropped characters."""

    def at(offset: int) -> int:
        return offset - sum(1 for d in dropped if d < offset)

    return [(at(start), at(end), label) for start, end, label in entities]


def compare(ours: list[dict], release: list[dict]) -> Comparison:
    """Compare each document of the release with ours of the same DOCID."""
    by_id = {doc["doc_id"]: doc for doc in ours}
    result = Comparison()
    for theirs in release:
        docid = theirs["doc_id"]
        result.documents += 1
        result.order.append(docid)
        mine = by_id.get(docid)
        if mine is None:
            result.missing.append(docid)
            continue
        if mine["doc_text"] == theirs["doc_text"]:
            result.text.append(docid)
            if spans(mine) == spans(theirs):
                result.entities.append(docid)
            continue
        dropped = dropped_blanks(mine["doc_text"], theirs["doc_text"])
        if dropped is None:
            continue
        result.blank.append(docid)
        if moved(spans(mine), dropped) == spans(theirs):
            result.mapped.append(docid)
    return result


def exported(cd: Path, scenario: str, alt: str) -> list[dict]:
    """The collection as ``harem export --format harem-json`` writes it."""
    documents = export_documents(read_collection(cd), scenario=scenario, alt=alt)
    return json.loads("".join(export_text(documents, "harem-json")))


def main(argv: list[str] | None = None) -> int:
    """Print the comparison of the collection's export with a release file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cd", type=Path, help="the golden collection (.gz allowed)")
    parser.add_argument("release", type=Path, help="the published harem-json file")
    parser.add_argument("--scenario", default="total", choices=("total", "selective"))
    parser.add_argument("--alt", default="best", choices=("first", "best"))
    args = parser.parse_args(argv)
    release = json.loads(args.release.read_text("utf-8"))
    sys.stdout.write(compare(exported(args.cd, args.scenario, args.alt), release).format())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
