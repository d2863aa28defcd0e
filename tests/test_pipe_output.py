"""Output to a pipe is output to a file, byte for byte, for every command that writes.

Each writing command runs on a First HAREM chain (the aligner's fast path
falls back to the general reader there, after its first attempt) and on a
Second HAREM one, with ``-o FILE``, ``-o -`` on a pipe, ``-o /dev/fd/N``
(what ``/dev/stdout`` is when standard output is a pipe) and ``-o FIFO``
read by another thread; the bytes must be the file's.  The commands that
only print (``stats``, ``check``, ``compare``) print the same bytes to a
pipe as to a file.
"""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import format_collection
from tests.helpers.paths import DATA
from tests.helpers.shipped import shipped_collection

SOURCES = {
    "first": (
        DATA / "first-harem" / "ColeccaoDouradaHAREM.txt",
        DATA / "campaign" / "sim-strong.txt.gz",
    ),
    "second": (
        DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz",
        DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz",
    ),
}
MORPHOLOGY = {"first"}  # the Second HAREM run carries no MORF: Vizir writes nothing for it
DOCUMENTS = 6  # the first documents of each file: enough for every kind of line, quick


def first_documents(source: Path, target: Path) -> Path:
    full = shipped_collection(source)
    small = dataclasses.replace(full, documents=full.documents[:DOCUMENTS])
    target.write_bytes(format_collection(small).encode(full.encoding))
    return target


def run_ok(*argv: str) -> None:
    assert main(list(argv)) == 0, argv


@dataclasses.dataclass(frozen=True)
class Chain:
    """Every file of one evaluation, written to regular files."""

    folder: Path
    cd: Path
    run: Path

    def __getattr__(self, suffix: str) -> str:
        return str(self.folder / f"run.{suffix}")


def build_chain(folder: Path, name: str) -> Chain:
    cd_source, run_source = SOURCES[name]
    suffix = ".txt" if name == "first" else ".xml"
    cd = first_documents(cd_source, folder / f"cd{suffix}")
    run = first_documents(run_source, folder / f"run{suffix}")
    chain = Chain(folder, cd, run)
    run_ok("align", "--cd", str(cd), "--run", str(run), "-o", chain.alinhado)
    run_ok("avalida", chain.alinhado, "-o", chain.avalida)
    run_ok("veus", chain.avalida, "--style", "harem", "-o", chain.veu)
    run_ok("altida", chain.veu, "-o", chain.altida)
    run_ok("ida2id", chain.altida, "--bootstrap", "0", "-o", chain.ida2id)
    run_ok("alts", chain.veu, "-o", chain.alts)
    run_ok("emir", chain.alts, "-o", chain.emir)
    if name in MORPHOLOGY:
        run_ok("vizir", chain.veu, "-abs", "-o", chain.vizir)
        run_ok("altmor", chain.vizir, "-o", chain.altmor)
    run_ok("export", str(cd), "--format", "harem-json", "-o", chain.json)
    return chain


@pytest.fixture(scope="module", params=sorted(SOURCES))
def chain(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Chain:
    return build_chain(tmp_path_factory.mktemp(request.param), request.param)


# Every command that writes a file: its arguments but -o, from the chain's files.
WRITERS: dict[str, Callable[[Chain], list[str]]] = {
    "align": lambda c: ["align", "--cd", str(c.cd), "--run", str(c.run)],
    "avalida": lambda c: ["avalida", c.alinhado],
    "veus": lambda c: ["veus", c.avalida, "--style", "harem"],
    "altida": lambda c: ["altida", c.veu],
    "ida2id": lambda c: ["ida2id", c.altida, "--bootstrap", "20"],
    "alts": lambda c: ["alts", c.veu],
    "espurios": lambda c: ["espurios", c.alts],
    "emir": lambda c: ["emir", c.alts],
    "altsem": lambda c: ["altsem", c.emir],
    "ida": lambda c: ["ida", c.emir, "--bootstrap", "20"],
    "vizir": lambda c: ["vizir", c.veu, "-abs"],
    "altmor": lambda c: ["altmor", c.vizir],
    "ida2mor": lambda c: ["ida2mor", c.altmor, "--bootstrap", "20"],
    "measures": lambda c: ["measures", "--cd", str(c.cd), "--run", str(c.run)],
    "export": lambda c: ["export", str(c.cd), "--format", "harem-json"],
    "import": lambda c: ["import", c.json, "--format", "harem-json", "--cd", str(c.cd)],
    "simulate": lambda c: ["simulate", "--cd", str(c.cd), "--profile", "average"],
}
# The commands that print to standard output only.
PRINTERS: dict[str, Callable[[Chain], list[str]]] = {
    "stats": lambda c: ["stats", str(c.cd)],
    "check": lambda c: ["check", f"{c.ida2id}.json", "--min", "medida_f=0"],
    "compare": lambda c: ["compare", f"{c.ida2id}.json", f"{c.ida2id}.json", "--bootstrap", "10"],
}


@contextmanager
def read_in_thread(path: str | int) -> Iterator[list[bytes]]:
    """What another thread reads from ``path`` (a FIFO, or a pipe's read end)."""
    received: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as handle:
            received.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if isinstance(path, str):
        wait_until_opening(reader)
    try:
        yield received
    finally:
        reader.join(timeout=60)
        assert not reader.is_alive(), "the reader never saw the end of the output"


def wait_until_opening(reader: threading.Thread) -> None:
    """Wait until ``reader`` waits in ``open`` for a FIFO's writer (Linux: its ``wchan``).

    A command that fails lets the FIFO's reader go at once; a reader that
    had not opened the FIFO yet would then wait for ever, in a test as for
    a user.  (Where the kernel does not say, a short wait instead.)
    """
    wchan = Path(f"/proc/self/task/{reader.native_id}/wchan")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if wchan.read_text() == "wait_for_partner":
                return
        except OSError:
            time.sleep(0.2)
            return
        time.sleep(0.005)


@contextmanager
def standard_output_on(fd: int) -> Iterator[None]:
    """``sys.stdout`` on descriptor ``fd`` (closed afterwards), as a shell redirection sets it."""
    saved = sys.stdout
    sys.stdout = io.TextIOWrapper(open(fd, "wb"), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdout.close()
        sys.stdout = saved


def through_pipe(argv: list[str], output: str | None) -> bytes:
    """Run ``argv`` with standard output on a pipe, ``output`` (``-``, ``/dev/fd/{w}``) as -o."""
    read_end, write_end = os.pipe()
    with read_in_thread(read_end) as received:
        with standard_output_on(write_end):
            extra = [] if output is None else ["-o", output.format(w=write_end)]
            assert main(argv + extra) == 0
    return received[0]


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_pipe_or_a_fifo_gets_the_bytes_of_a_file(
    chain: Chain, command: str, tmp_path: Path
) -> None:
    if command in ("vizir", "altmor", "ida2mor") and chain.cd.suffix == ".xml":
        pytest.skip("no MORF in the Second HAREM run (Vizir writes nothing; see test_vizir)")
    argv = WRITERS[command](chain)
    regular = tmp_path / "out"
    assert main([*argv, "-o", str(regular)]) == 0
    expected = regular.read_bytes()
    assert expected  # something to compare
    assert through_pipe(argv, "-") == expected
    assert through_pipe(argv, "/dev/fd/{w}") == expected
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with read_in_thread(str(fifo)) as received:
        assert main([*argv, "-o", str(fifo)]) == 0
    assert received == [expected]


@pytest.mark.parametrize("command", sorted(PRINTERS))
def test_printing_to_a_pipe_gives_the_bytes_of_a_file(
    chain: Chain, command: str, tmp_path: Path
) -> None:
    argv = PRINTERS[command](chain)
    regular = tmp_path / "out"
    with standard_output_on(os.open(regular, os.O_WRONLY | os.O_CREAT, 0o644)):
        assert main(argv) == 0
    expected = regular.read_bytes()
    assert expected
    assert through_pipe(argv, None) == expected


def test_the_fallback_header_is_written_once_on_a_pipe(tmp_path: Path) -> None:
    # First HAREM: the fast path gives up after writing the two # lines; the
    # pipe must not hear them twice.
    chain = build_chain(tmp_path, "first")
    out = through_pipe(["align", "--cd", str(chain.cd), "--run", str(chain.run)], "-")
    lines = out.decode("iso8859-1").splitlines()
    assert lines[:2] == ["# run.txt", "# cd.txt"]
    assert sum(1 for line in lines if line.startswith("#")) == 2


def test_a_failing_command_sends_nothing_and_lets_the_fifo_reader_go(tmp_path: Path) -> None:
    bad = tmp_path / "bad.alinhado"
    bad.write_text("DOC d\n<<<garbage\nEOD\n", encoding="utf-8")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with read_in_thread(str(fifo)) as received:
        assert main(["avalida", str(bad), "-o", str(fifo)]) == 2
    assert received == [b""]


def test_dev_stdout_on_a_real_pipe_gets_the_file_s_bytes(tmp_path: Path) -> None:
    # A process of its own, its standard output a pipe: -o /dev/stdout and -o - as the
    # shell gives them, on the First HAREM (where the aligner starts over).
    chain = build_chain(tmp_path, "first")
    argv = ["align", "--cd", str(chain.cd), "--run", str(chain.run)]
    command = [sys.executable, "-m", "harem_pipeline", "--quiet", *argv]
    for target in ("/dev/stdout", "-"):
        done = subprocess.run([*command, "-o", target], capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout == Path(chain.alinhado).read_bytes()


def test_vizir_writing_nothing_leaves_a_fifo_in_place_and_lets_its_reader_go(
    tmp_path: Path,
) -> None:
    # No system MORF: Vizir writes no output and removes a stale one, but never the
    # FIFO (or device, or file named "-") it was given.
    source = Path(__file__).parent / "cases" / "vizir" / "no-system-morph.txt"
    fifo = tmp_path / "out.vizir"
    os.mkfifo(fifo)
    with read_in_thread(str(fifo)) as received:
        assert main(["vizir", str(source), "-abs", "-o", str(fifo)]) == 0
    assert received == [b""]
    assert fifo.exists() and not fifo.is_file()
