"""Process exit codes, in one place so CI scripts can rely on them."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0  # nothing failed
    FAILURES_FOUND = 1  # the campaign (or a replay) found failing inputs
    USAGE = 2  # bad command line, configuration or handler import
    INTERRUPTED = 130  # stopped by Ctrl-C (128 + SIGINT, as shells report it)
