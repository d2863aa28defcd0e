"""``harem run``: the whole campaign of ``pipeline.yaml``, for people who don't know Luigi.

This is the same as ``luigi --module harem_pipeline FullEvaluation`` with the
campaign validated first (one line naming the key on a mistake, exit 2),
the workers taken from the file unless given, and the exit status 0 only
when every task succeeded.  With several workers and a local scheduler the
runs' chains are first built in shares, a process each
(``tasks.build.build_runs_apart``): the same tasks, far fewer processes.

What it prints: on a terminal, with a local scheduler, one line on standard
error counting the stages and runs done as they finish (``tasks.progress``); Luigi's execution
summaries only with ``--verbose``; last, on standard output, the two paths
that matter (the summary and the report).
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import sys
import urllib.parse
import urllib.request
from pathlib import Path

from harem_pipeline.cli.options import whole_number
from harem_pipeline.errors import InputError
from harem_pipeline.text.progress import is_quiet, set_quiet


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the whole campaign described by pipeline.yaml (Luigi)",
        description=(
            "Run every stage of the campaign in pipeline.yaml: only what changed since the "
            "last run is recomputed. Exit 0 when every task succeeded, 1 otherwise, 2 for a "
            "mistake in pipeline.yaml."
        ),
    )
    parser.add_argument("--config", default="pipeline.yaml", help="default: ./pipeline.yaml")
    parser.add_argument(
        "--workers",
        type=whole_number("--workers", 1),
        help="parallel workers (default: from the file)",
    )
    parser.add_argument(
        "--scheduler-url",
        help="a central luigid scheduler (e.g. http://host:8082); default: a local scheduler",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line or bars")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="also print Luigi's execution summaries (what ran, what was found complete)",
    )
    parser.set_defaults(func=run_campaign)


def run_campaign(args: argparse.Namespace) -> int:
    import luigi

    from tasks import FullEvaluation, progress
    from tasks.base import BuildSchedulerFactory, reread_campaign
    from tasks.build import build_runs_apart
    from tasks.pipeline import Summary

    config = Path(args.config).resolve()
    campaign = reread_campaign(str(config))  # what every task of this build reads
    # With a central scheduler other machines run some of the stages, which no count here
    # would see: the line is drawn for a local build only.
    show_progress = not (args.quiet or is_quiet() or args.scheduler_url) and progress.is_terminal(
        sys.stderr
    )
    if args.quiet or show_progress:
        set_quiet()  # the campaign's line stands for the stages' own bars
    workers = args.workers or campaign.workers
    if args.scheduler_url:
        check_scheduler(args.scheduler_url)
    luigi.task_register.Register.clear_instance_cache()  # read the campaign as it is now
    root = FullEvaluation(config=str(config), fresh=True)
    scheduler = (
        {"scheduler_url": args.scheduler_url} if args.scheduler_url else {"local_scheduler": True}
    )
    if show_progress and not root.recorded:
        progress.start(root)
    try:
        if not args.scheduler_url:
            for share in build_runs_apart(root, workers):
                if args.verbose:
                    print("A share of the runs, built in a process of its own:", share, sep="\n")
        result = luigi.build(
            [root],
            worker_scheduler_factory=BuildSchedulerFactory(),
            workers=workers,
            detailed_summary=True,
            log_level="WARNING",
            **scheduler,
        )
    except BaseException:
        progress.stop(succeeded=False)
        raise
    succeeded = result.status in (
        luigi.execution_summary.LuigiStatusCode.SUCCESS,
        luigi.execution_summary.LuigiStatusCode.SUCCESS_WITH_RETRY,
    )
    progress.stop(succeeded)
    logging.shutdown()
    if args.verbose:
        print(result.summary_text)
    if succeeded:
        print(f"Summary: {campaign.output / 'summary.md'}")
        print(f"Report:  {campaign.output / 'report.html'}")
    else:
        # The runs that did succeed still get a summary and report, marked incomplete.
        luigi.task_register.Register.clear_instance_cache()
        Summary(config=str(config)).produce_incomplete()
        print(f"Incomplete summary: {campaign.output / 'summary.md'}")
        print(f"Incomplete report:  {campaign.output / 'report.html'}")
    return 0 if succeeded else 1


SCHEDULER_TIMEOUT = 3.0
"""Seconds to wait for a central scheduler's answer before giving up."""


def check_scheduler(url: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Refuse a ``--scheduler-url`` where no luigid answers, before any task is scheduled.

    Luigi would retry for about a minute, then print a traceback per
    attempt (206 lines for a dead scheduler).  One read-only request (the
    list of running tasks, as Luigi's own client asks it) says it in a line.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError("--scheduler-url", "an http://HOST:PORT address of a luigid", repr(url))
    netloc = parts.netloc.rsplit("@", 1)[-1]  # credentials go in a header
    api = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    body = urllib.parse.urlencode({"data": json.dumps({"status": "RUNNING"})}).encode()
    request = urllib.request.Request(f"{api}/api/task_list", data=body)
    if parts.username:
        token = base64.b64encode(f"{parts.username}:{parts.password or ''}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read().decode("utf-8"))
        if not isinstance(answer, dict) or "response" not in answer:
            raise ValueError("not a luigid answer")
    except (OSError, ValueError) as exc:  # URLError, HTTPError, a timeout, not JSON
        reason = getattr(exc, "reason", None) or exc
        if isinstance(reason, OSError) and reason.strerror:
            reason = reason.strerror
        raise InputError(
            "--scheduler-url", f"a luigid answering at {api}", f"none ({reason})"
        ) from None
