"""No tracked text file names a folder of one particular machine.

Paths in code, tests and documentation are relative to the repository (or
found at run time); an example path in the documentation is a neutral one
such as ``/home/ana/campaign``.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers.paths import ROOT

# Written from parts, so that this file does not hold the paths it looks for.
MACHINE_FOLDERS = tuple(f"/{name}/".encode() for name in ("work", "root"))


def machine_paths(data: bytes) -> list[tuple[int, str]]:
    """(line number, folder) for every machine folder named in ``data``."""
    return [
        (number, folder.decode())
        for number, line in enumerate(data.split(b"\n"), start=1)
        for folder in MACHINE_FOLDERS
        if folder in line
    ]


def test_checker_finds_a_machine_path() -> None:
    data = b"ok\nsee " + MACHINE_FOLDERS[0] + b"shared/data\n"
    assert machine_paths(data) == [(2, MACHINE_FOLDERS[0].decode())]
    assert machine_paths(b"relative to /home/ana/campaign\n") == []


def test_no_tracked_text_file_holds_a_machine_path() -> None:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    names = [name for name in listed.decode("utf-8").split("\0") if name]
    assert "README.md" in names
    found = []
    for name in names:
        path = ROOT / name
        if name.endswith(".gz") or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        found += [f"{name}:{number}: {folder}" for number, folder in machine_paths(data)]
    assert found == []
