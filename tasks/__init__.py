"""The Luigi layer: thin tasks over the library.

Importing this package (which ``luigi --module harem_pipeline`` does through
``harem_pipeline/__init__``) also sets Luigi's ``[retcode]`` options, so the
``luigi`` command exits non-zero when a task fails or cannot run without any
configuration file in the working folder, and stops user-input errors from
being logged with a traceback.

It also sets Luigi's default log level to WARNING (Luigi's own default,
DEBUG, logs some sixty lines before a campaign's one-line error): the
failures and our one-line errors still show.  ``--log-level DEBUG`` (or
INFO, which adds Luigi's execution summary) on the command line, or
``[core] log_level`` in a ``luigi.cfg``, gives Luigi's logging back.
"""

from __future__ import annotations

import logging

import luigi.configuration

from harem_pipeline.errors import HaremError, install_warning_line

# Luigi's documented recommendation for every failure.  ``already_running``
# and ``not_run`` stay 0: with a central scheduler they mean "run by, or left
# to, another worker", which is how a campaign spreads over machines, not a
# failure; a task that fails is ``task_failed`` in the worker that ran it.
RETCODES = {
    "already_running": 0,
    "missing_data": 20,
    "not_run": 0,
    "task_failed": 30,
    "scheduling_error": 35,
    "unhandled_exception": 40,
}


LOG_LEVEL = "WARNING"
"""The ``luigi`` command's log level unless the command line or a ``luigi.cfg`` says."""


def configure_log_level() -> None:
    """Set ``[core] log_level`` unless the user's own Luigi configuration already did.

    The ``luigi`` command imports this package (``--module``) before it reads
    its own parameters, so ``--log-level`` given on the command line still wins.
    """
    config = luigi.configuration.get_config()
    if not config.has_option("core", "log_level") and not config.has_option("core", "log-level"):
        config.set("core", "log_level", LOG_LEVEL)


def configure_retcodes() -> None:
    """Set ``[retcode]`` unless the user's own Luigi configuration already did."""
    config = luigi.configuration.get_config()
    for option, value in RETCODES.items():
        if not config.has_option("retcode", option):
            config.set("retcode", option, str(value))


class _UserErrorWithoutTraceback(logging.Filter):
    """A HaremError is a user's mistake: log its one line, not a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], HaremError):
            # A mistake in pipeline.yaml stops the command before anything runs:
            # its own line says it all ("Uncaught exception" would not be true).
            uncaught = record.getMessage().startswith("Uncaught exception")
            record.msg = (
                str(record.exc_info[1])
                if uncaught
                else (f"{record.getMessage()}: {record.exc_info[1]}")
            )
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


def install_log_filter() -> None:
    logging.getLogger("luigi-interface").addFilter(_UserErrorWithoutTraceback())


configure_retcodes()
configure_log_level()
install_log_filter()
install_warning_line()

from tasks.pipeline import FullEvaluation  # noqa: E402  (registers every task)

__all__ = ["FullEvaluation", "RETCODES"]
