"""Every citation of the specification names a page (and a section) that ships.

The code and the tests cite ``docs/spec/<page>.md §N`` or ``docs/spec/<page>.md``
(``docs/spec/original/<file>`` for the two source documents).  Only
``docs/spec/vizir-altinamor-ida2mor.md`` numbers its sections (``## 1. …``);
a ``§N`` citation must name a heading numbered N of the page it cites.  The
pages themselves refer to each other by bare name (``identification.md``) and
to the repository's files by their path from the root (``data/…``).

This module holds deliberately wrong citations to test the checkers, so the
scans leave it out.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

SPEC = ROOT / "docs" / "spec"
THIS_FILE = Path(__file__).resolve()

# Where citations may appear, and where they must take the one canonical form.
CITING = ("harem_pipeline", "tasks", "tests", "bench", "docs", "README.md")
CODE = ("harem_pipeline", "tasks", "tests", "bench")

# ``spec/page.md``, with or without ``docs/``, and an optional ``§N`` or ``§N–M``.
REFERENCE = re.compile(
    r"(?<![\w.-])(?P<prefix>(?:docs/)?spec/)(?P<path>[\w./-]*\w)"
    r"(?:\s*§\s*(?P<first>\d+)(?:\s*[–-]\s*§?\s*(?P<last>\d+))?)?"
)
SECTION_HEADING = re.compile(r"^#{1,6}\s+(\d+)\.\s", re.MULTILINE)
SECTION_SIGN = re.compile(r"§\s*\d")


def spec_pages() -> list[str]:
    return sorted(p.name for p in SPEC.glob("*.md") if p.name != "README.md")


def numbered_sections(page: Path) -> set[int]:
    """The numbers of the page's numbered headings (``## 2. How Vizir scores …`` → 2)."""
    return {int(n) for n in SECTION_HEADING.findall(page.read_text(encoding="utf-8"))}


def reference_problems(text: str, spec: Path = SPEC) -> list[str]:
    """What is wrong with each ``spec/…`` citation of ``text``: no such page or section."""
    problems = []
    for match in REFERENCE.finditer(text):
        cited = match.group(0)
        page = spec / match.group("path")
        if not page.is_file():
            problems.append(f"{cited}: no file {page.relative_to(spec.parent.parent)}")
            continue
        if match.group("first") is None:
            continue
        first = int(match.group("first"))
        last = int(match.group("last") or first)
        missing = set(range(first, last + 1)) - numbered_sections(page)
        if missing or last < first:
            problems.append(f"{cited}: no section {sorted(missing) or [first, last]}")
    return problems


def loose_citations(text: str, pages: list[str]) -> list[str]:
    """Citations not in the form ``docs/spec/<page>.md [§N]``."""
    found = []
    canonical = [m for m in REFERENCE.finditer(text) if m.group("prefix") == "docs/spec/"]
    for match in REFERENCE.finditer(text):
        if match.group("prefix") != "docs/spec/":
            found.append(f"{match.group(0)}: write docs/spec/{match.group('path')}")
    for match in SECTION_SIGN.finditer(text):
        if not any(m.start() <= match.start() < m.end() for m in canonical):
            line = text[: match.start()].count("\n") + 1
            found.append(f"line {line}: a § with no docs/spec/<page>.md before it")
    names = "|".join(re.escape(page) for page in pages)
    for match in re.finditer(rf"(?<![\w/.-])(?:{names})(?![\w.-])", text):
        line = text[: match.start()].count("\n") + 1
        found.append(f"line {line}: {match.group(0)} without docs/spec/")
    return found


def tracked_text_files(*roots: str) -> list[Path]:
    """Files of the checkout under ``roots`` (tracked or not ignored), text only."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", *roots],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in sorted(set(listed.decode("utf-8").split("\0")) - {""}):
        path = ROOT / name
        if path.suffix == ".gz" or not path.is_file() or path.resolve() == THIS_FILE:
            continue
        if b"\0" in path.read_bytes()[:8192]:
            continue  # binary (the report screenshot)
        files.append(path)
    return files


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------
# The checkers on strings


def test_checker_reports_a_made_up_page_and_section() -> None:
    text = (
        "see docs/spec/no-such-page.md, docs/spec/vizir-altinamor-ida2mor.md §9 "
        "and docs/spec/vizir-altinamor-ida2mor.md §4–7"
    )
    assert reference_problems(text) == [
        "docs/spec/no-such-page.md: no file docs/spec/no-such-page.md",
        "docs/spec/vizir-altinamor-ida2mor.md §9: no section [9]",
        "docs/spec/vizir-altinamor-ida2mor.md §4–7: no section [6, 7]",
    ]


def test_checker_accepts_real_pages_sections_and_ranges() -> None:
    text = (
        "docs/spec/vizir-altinamor-ida2mor.md §2, docs/spec/vizir-altinamor-ida2mor.md §1–3, "
        "docs/spec/measures.md and docs/spec/original/metodika-otsenki.ru.txt"
    )
    assert reference_problems(text) == []
    assert loose_citations(text, spec_pages()) == []


def test_checker_reports_loose_citations() -> None:
    text = "rules of spec/measures.md\n(spec §5)\nas measures.md says\nsummary.md is no page\n"
    assert loose_citations(text, spec_pages()) == [
        "spec/measures.md: write docs/spec/measures.md",
        "line 2: a § with no docs/spec/<page>.md before it",
        "line 3: measures.md without docs/spec/",
    ]


def test_vizir_page_numbers_its_five_sections() -> None:
    assert numbered_sections(SPEC / "vizir-altinamor-ida2mor.md") == {1, 2, 3, 4, 5}


# ---------------------------------------------------------------------------
# The repository


def test_every_spec_reference_names_a_shipped_page_and_section() -> None:
    files = tracked_text_files(*CITING)
    assert any(p.suffix == ".py" for p in files) and any(p.parent == SPEC for p in files)
    problems = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in files
        for problem in reference_problems(_read(path))
    ]
    assert problems == []


def test_code_and_tests_cite_the_spec_in_one_form() -> None:
    pages = spec_pages()
    problems = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in tracked_text_files(*CODE)
        for problem in loose_citations(_read(path), pages)
    ]
    assert problems == []


def test_spec_pages_cite_pages_and_files_that_exist() -> None:
    # Bare page names and ``original/…`` are relative to docs/spec; paths from
    # the root (``data/…``, ``tests/…``) to the repository; ``…`` and ``*`` are
    # globs; ``<placeholders>`` are not paths.
    roots = ("data/", "docs/", "harem_pipeline/", "tests/")
    problems = []
    for page in sorted(SPEC.glob("*.md")):
        for quoted in re.findall(r"`([^`\s]+)`", page.read_text(encoding="utf-8")):
            if "<" in quoted:
                continue
            if quoted.startswith(roots):
                base = ROOT
            elif quoted.endswith(".md") or quoted.startswith("original/"):
                base = SPEC
            else:
                continue
            pattern = quoted.replace("…", "*").rstrip("/")
            if not any(base.glob(pattern)):
                problems.append(f"{page.name}: `{quoted}`")
    assert problems == []


def test_the_index_lists_every_page() -> None:
    index = (SPEC / "README.md").read_text(encoding="utf-8")
    assert [page for page in spec_pages() if f"`{page}`" not in index] == []
    originals = sorted(p.name for p in (SPEC / "original").iterdir())
    assert originals == ["metodika-otsenki.ru.txt", "vizir-avaliador-morfologico.pt.txt"]
    assert all(f"original/{name}" in index for name in originals)
