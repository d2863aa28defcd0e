"""``harem browse``: write a run's alignments as static HTML pages (``reports.browse``).

The collection and the run are read a document at a time and paired as the
aligner pairs them (``stages.align.document_pairs``); each pair's token view
(``stages.align_tokens``) names every entity's numbered tokens, and its
``.avalida`` records are either read from the campaign's file or made here
(AlinhEM then AvalIDa, in memory).  The ``.emir``, when given, is read in
step (same document order; it may lack documents).  Pages are written into
a fresh folder renamed onto the output at the end, so a failed run leaves
the previous pages (or none), never half of them.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    DocStart,
    DocumentLine,
    Line,
    Record,
    iter_lines,
    parse_lines,
)
from harem_pipeline.formats.harem_xml import open_collection
from harem_pipeline.formats.semantic import iter_semantic_lines
from harem_pipeline.pipeline.align import check_shared_documents
from harem_pipeline.pipeline.manifest import OUTPUT_KEY, Places, digest_file
from harem_pipeline.reports import browse
from harem_pipeline.stages.align import DocumentPair, document_pairs, pair_documents, pair_lines
from harem_pipeline.stages.align_tokens import pair_token_text
from harem_pipeline.stages.avalida import evaluate_lines
from harem_pipeline.stages.browse import BrowseDocument, link_document, unnumbered
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.text.java import java_trim
from harem_pipeline.tools.simulate import is_simulated


@dataclass(frozen=True, slots=True)
class BrowseWritten:
    """What ``write_browse`` made: the index page, how many pages, the largest page's bytes."""

    index: Path
    documents: int
    largest_page: int
    warnings: tuple[str, ...]


def _documents_of(lines: Iterator[Line]) -> Iterator[tuple[str, list[Record]]]:
    """``(docid, records)`` of each document of a record file, in order."""
    docid: str | None = None
    records: list[Record] = []
    for line in lines:
        if isinstance(line, (DocStart, DocumentLine)):
            if docid is not None:
                yield docid, records
            docid, records = line.docid, []
        elif isinstance(line, Record) and docid is not None:
            records.append(line)
    if docid is not None:
        yield docid, records


class _InStep:
    """A record file's documents taken in step with the pairs: ``take(docid)`` or nothing."""

    def __init__(self, documents: Iterator[tuple[str, list[Record]]]) -> None:
        self._documents = documents
        self._next = next(documents, None)

    def take(self, docid: str) -> list[Record] | None:
        """The records of ``docid`` when it is the next document (DOCIDs compared trimmed)."""
        if self._next is not None and java_trim(self._next[0]) == java_trim(docid):
            found = self._next[1]
            self._next = next(self._documents, None)
            return found
        return None

    def left(self) -> str | None:
        """The DOCID of the next document not taken, if any."""
        return None if self._next is None else self._next[0]


def write_browse(
    cd_path: PathLike,
    run_path: PathLike,
    output: PathLike,
    avalida: PathLike | None = None,
    emir: PathLike | None = None,
    run_name: str | None = None,
    note: str | None = None,
) -> BrowseWritten:
    """Write ``output/index.html``, ``output/docs/NNNNN.html`` and their stylesheet and scripts.

    ``note`` (default: the simulated-run warning when the run file says it
    is one) is shown on every page.  ``avalida`` None aligns and evaluates
    here; otherwise its records must be those of aligning ``cd_path`` with
    ``run_path`` (a mismatch is an ``InputError`` naming the document).
    """
    target = Path(output)
    if target.exists() and not target.is_dir():
        raise InputError(str(target), "a folder for the pages (or no file there)", "a file")
    name = run_name or Path(run_path).name
    if note is None:
        note = browse.SIMULATED_NOTE if is_simulated(run_path) else ""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_folders(target)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        work.chmod(0o755)  # a folder like any other (mkdtemp makes it private)
        written = _write_pages(cd_path, run_path, work, avalida, emir, name, note)
        _replace_folder(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return BrowseWritten(target / "index.html", *written)


def _write_pages(
    cd_path: PathLike,
    run_path: PathLike,
    folder: Path,
    avalida: PathLike | None,
    emir: PathLike | None,
    name: str,
    note: str,
) -> tuple[int, int, tuple[str, ...]]:
    cd, run = open_collection(cd_path), open_collection(run_path)
    if cd.format != run.format:
        raise InputError(run.path, f"a run in the {cd.format} format of the CD", run.format)
    evaluated = _InStep(_documents_of(iter_lines(avalida)[1])) if avalida is not None else None
    semantic = _InStep(_documents_of(iter_semantic_lines(emir)[1])) if emir is not None else None
    warnings: list[str] = []
    run_docids: list[str] = []
    rows: list[browse.IndexRow] = []
    largest = 0
    (folder / "docs").mkdir()
    pages: list[tuple[BrowseDocument, int]] = []
    for position, pair in enumerate(document_pairs(cd, run, warnings)):
        cd_doc, run_doc, _ = pair_documents(pair)
        run_docids.append(run_doc.docid)
        numbered = [line for line in parse_lines(pair_token_text(pair)) if isinstance(line, Record)]
        records = _evaluated_records(pair, evaluated, avalida, cd_doc.docid, numbered)
        emir_records = (semantic.take(cd_doc.docid) if semantic is not None else None) or []
        doc = link_document(cd_doc, run_doc, pair.xml, records, numbered, emir_records)
        rows.append(browse.index_row(doc, position))
        pages.append((doc, position))
        if len(pages) == 2:  # a page is written once the next one is known to exist
            largest = max(largest, _write_page(folder, *pages.pop(0), name, None, note))
    if not rows:
        check_shared_documents(str(cd_path), str(run_path), run_docids, 0)
    for doc, position in pages:
        largest = max(largest, _write_page(folder, doc, position, name, len(rows), note))
    if evaluated is not None and evaluated.left() is not None:
        raise InputError(
            str(avalida),
            "only the documents of aligning the CD with the run",
            f"document {evaluated.left()} besides",
        )
    write_text_atomic(folder / "index.html", browse.render_index(rows, name, note))
    write_text_atomic(folder / "browse.css", browse.STYLE)
    write_text_atomic(folder / "browse.js", browse.SCRIPT)
    write_text_atomic(folder / "browse-index.js", browse.INDEX_SCRIPT)
    write_text_atomic(
        folder / "documents.json",
        json.dumps([{"docid": r.docid, "page": r.page, "counts": r.counts} for r in rows]),
    )
    return len(rows), largest, tuple(warnings)


def _evaluated_records(
    pair: DocumentPair,
    evaluated: _InStep | None,
    avalida: PathLike | None,
    docid: str,
    numbered: list[Record],
) -> list[Record]:
    """The document's ``.avalida`` records: read in step (checked against the token
    view's: as many, the same gold texts), or made here."""
    if evaluated is None:
        lines = evaluate_lines(pair_lines(pair))
        return [line for line in lines if isinstance(line, Record)]
    found = evaluated.take(docid)
    if found is None:
        raise InputError(
            str(avalida), f"the records of document {docid} (next in the alignment)", "none"
        )
    if len(found) != len(numbered):
        raise InputError(
            str(avalida),
            f"{len(numbered)} records (as aligning the CD with the run gives)",
            f"{len(found)}",
            docid=docid,
        )
    for record, tokens in zip(found, numbered, strict=True):
        expected = java_trim(unnumbered(tokens.gold.text))
        if java_trim(record.gold.text) != expected:
            raise InputError(
                str(avalida),
                f"the record of {expected!r} (as aligning the CD with the run gives)",
                repr(record.gold.text),
                line=record.line or None,
            )
    return found


def _write_page(
    folder: Path,
    doc: BrowseDocument,
    position: int,
    name: str,
    total: int | None,
    note: str,
) -> int:
    """Write one document's page; return its size in bytes.

    ``total`` None: a later page exists (the page links to it).
    """
    known = position + 2 if total is None else total
    text = browse.render_document_page(doc, name, position, known, note)
    data = text.encode("utf-8")
    write_text_atomic(folder / "docs" / browse.page_name(position), text)
    return len(data)


def remove_stale_folders(target: Path) -> int:
    """Delete the folders a killed writer of ``target`` left beside it; return how many.

    ``write_browse`` writes into ``.NAME.XXXXXXXX`` and moves the pages it
    replaces to ``.NAME.old.XXXXXXXX`` (``mkdtemp``'s eight characters): a
    build killed meanwhile leaves one of them, megabytes of pages nothing
    else would remove.  Only folders of exactly those names are taken.
    """
    escaped = glob.escape(target.name)
    stale = [
        path
        for pattern in (f".{escaped}.{'?' * 8}", f".{escaped}.old.{'?' * 8}")
        for path in target.parent.glob(pattern)
        if path.is_dir() and not path.is_symlink()
    ]
    for folder in stale:
        shutil.rmtree(folder, ignore_errors=True)
    return len(stale)


def _replace_folder(new: Path, target: Path) -> None:
    """Put the folder ``new`` at ``target``, removing what was there."""
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
        os.rename(target, old / "x")
        os.rename(new, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(new, target)


PAGE_CODE = (
    "harem_pipeline/pipeline/browse.py",
    "harem_pipeline/reports/browse.py",
    "harem_pipeline/stages/browse.py",
    "harem_pipeline/stages/align_tokens.py",
)
"""The modules that draw the pages, relative to the package's parent folder."""


def pages_version() -> str:
    """A digest of the code that draws the pages (``PAGE_CODE``).

    The pages hold no figure the scoring version pins, but their layout and
    scripts change with this code: a campaign's pages drawn by other code
    are drawn again (its manifest records this digest).
    """
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for name in PAGE_CODE:
        digest.update((root / name).read_bytes())
    return digest.hexdigest()[:16]


def campaign_inputs(run_dir: PathLike) -> tuple[Path, Path, Path, Path | None, str]:
    """A campaign run's folder (``OUT/<run>``): its CD, run, ``.avalida``, ``.emir`` and name.

    The CD and the run are the inputs the aligner's manifest records (the
    ``.alinhado``'s ``#`` lines say which is which); the ``.emir`` is the
    subset ``total``'s, when the campaign made one.
    """
    folder = Path(run_dir)
    name = folder.name
    manifest = folder / f"{name}.alinhado.manifest.json"
    avalida = folder / f"{name}.alinhado.avalida"
    for needed in (manifest, avalida):
        if not needed.is_file():
            raise InputError(
                str(folder),
                "a campaign run's folder (OUT/<run>, made by harem run)",
                f"no {needed.name}",
            )
    inputs = json.loads(manifest.read_text(encoding="utf-8")).get("inputs", {})
    run_base, cd_base = _header_names(folder / f"{name}.alinhado")
    by_name = {Path(key).name: key for key in inputs}
    if run_base not in by_name or cd_base not in by_name:
        raise InputError(
            str(manifest),
            f"the inputs {run_base} and {cd_base} of the alignment",
            ", ".join(by_name),
        )
    cd, run = (
        _input_file(manifest, by_name[base], inputs[by_name[base]].get("sha256"), folder.parent)
        for base in (cd_base, run_base)
    )
    emir = folder / f"{name}.alinhado.avalida.total.alts.emir"
    return cd, run, avalida, emir if emir.is_file() else None, name


def _input_file(manifest: Path, key: str, sha256: str | None, output: Path) -> Path:
    """The file a campaign manifest's ``key`` names (``Places``): in the output folder, by
    its absolute path, or relative to the folder of ``pipeline.yaml``, which the output
    folder does not record: the working folder or one above the output folder, the first
    that holds a file of the recorded content."""
    if key == OUTPUT_KEY or key.startswith(OUTPUT_KEY + "/"):
        return Places(output, output).path(key)
    if Path(key).is_absolute():
        return Path(key)
    for base in (Path.cwd(), *Path(os.path.abspath(output)).parents):
        candidate = base / key
        try:
            if digest_file(candidate).sha256 == sha256:
                return candidate
        except OSError:
            continue
    raise InputError(
        str(manifest),
        f"the input {key} of the alignment, in the working folder or above the output folder",
        "no file of its recorded content",
    )


def _header_names(alinhado: Path) -> tuple[str, str]:
    """The run's and the CD's base names from the two ``#`` lines of an ``.alinhado``."""
    with alinhado.open("rb") as handle:
        first, second = handle.readline(), handle.readline()
    return (
        first.decode("latin-1").removeprefix("#").strip(),
        second.decode("latin-1").removeprefix("#").strip(),
    )
