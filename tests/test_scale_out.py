"""Scale-out: a real ``luigid`` on loopback, two worker processes, one campaign.

Workers on several machines share the output folder and a central
scheduler; here both are processes of this machine talking to ``luigid``
on a free loopback port.  Every task must run exactly once, and the outputs
must equal a local-scheduler run's.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.campaign import build, make_campaign, outputs

LUIGID = shutil.which("luigid", path=str(Path(sys.executable).parent)) or shutil.which("luigid")
pytestmark = pytest.mark.skipif(LUIGID is None, reason="luigid is not installed")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"luigid did not listen on port {port}")


def luigi_worker(folder: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import luigi.cmdline; luigi.cmdline.luigi_run()",
            "--module",
            "harem_pipeline",
            "FullEvaluation",
            *args,
        ],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_workers_against_luigid_run_each_task_once(tmp_path: Path) -> None:
    local = make_campaign(tmp_path / "local", documents=8)
    shared = make_campaign(tmp_path / "shared", documents=8)
    build(local)  # the local-scheduler run the workers' outputs must equal

    port = free_port()
    state = tmp_path / "luigid"
    state.mkdir()
    server = subprocess.Popen(
        [
            LUIGID,
            "--address",
            "127.0.0.1",
            "--port",
            str(port),
            "--pidfile",
            str(state / "pid"),
            "--logdir",
            str(state),
            "--state-path",
            str(state / "state.pickle"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        scheduler = [
            "--scheduler-host",
            "127.0.0.1",
            "--scheduler-port",
            str(port),
            "--workers",
            "1",
            "--worker-keep-alive",
            "--no-lock",
            # a worker with nothing to run yet asks again after 1 to 6 s by default
            "--worker-wait-interval",
            "0.1",
            "--worker-wait-jitter",
            "0.1",
            # Luigi's "running" lines, which say what each worker ran (the package's
            # default level is WARNING)
            "--log-level",
            "INFO",
        ]
        workers = [luigi_worker(shared.parent, *scheduler) for _ in range(2)]
        logs = [w.communicate(timeout=300) for w in workers]
        assert [w.returncode for w in workers] == [0, 0], [log[1][-2000:] for log in logs]
    finally:
        server.terminate()
        server.wait(timeout=30)

    ran = Counter()
    by_worker = []
    for _, stderr in logs:
        mine = re.findall(r"running   (\w+\([^)]*\))", stderr)
        by_worker.append(len(mine))
        ran.update(mine)
    # 2 runs × 14 stages (see test_tasks) + summary + report + FullEvaluation, each once.
    assert len(ran) == 2 * 14 + 3
    assert set(ran.values()) == {1}
    assert all(count > 0 for count in by_worker), "one worker did all the work"
    assert outputs(shared.parent / "out") == outputs(local.parent / "out")
