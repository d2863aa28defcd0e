"""Headless Chromium for the page tests (``report.html``, the pages of ``harem browse``):
the binary, its flags, one launch, its console."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--log-level=0",
]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run Chromium once with its own profile under ``tmp_path``."""
    assert CHROMIUM is not None
    profile = tmp_path / "profile"
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def console_messages(stderr: str) -> list[str]:
    """The page's console messages and uncaught errors in Chromium's log."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def title_of(dom: str) -> str:
    """The ``<title>`` of a dumped DOM (where a probe script writes what it measured)."""
    return dom.split("<title>", 1)[1].split("</title>", 1)[0]
