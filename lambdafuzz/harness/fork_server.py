"""How worker processes start: new interpreters, or forked from a server that imported
boto3 and moto once (`LAMBDAFUZZ_WORKER_START=forkserver`).

A spawned worker is a new interpreter that imports lambdafuzz's harness, boto3 and moto
before it can start its emulator and import the handler: 0.61 s a worker for gradebook,
most of it those imports (scratch timing, 3 starts). A campaign starts workers often: one
per worker at the start, a fresh one for each new failure's re-run, one after every crash
or hang. multiprocessing's fork server is a clean, single-threaded process, started once
per campaign process, that imports `PRELOAD` and forks a worker per start: 0.15 s each
after the server's own first start (scratch timing, 3 starts, same machine).

It is not the default: the server listens on a socket file in a `pymp-*` directory the
campaign makes under $TMPDIR, and a SIGKILL of the campaign's whole process group (the
server with it) leaves that directory behind; an abstract socket would leave nothing, but
the server authenticates no one (Python 3.12/3.13) and anyone on the host could reach it.

What a spawned worker got from the campaign at its start, a forked one gets too: the
start's `sys.path` and working directory travel with the process (multiprocessing's
preparation data), and the campaign's environment at the start is passed in and put in
place first (`adopt_environment`). The server runs no user code; each worker still
isolates itself before it imports the handler. A forked worker is the child of the
server, not of the campaign: the server ends when the campaign does (the end of its pipe),
and the worker's parent-death signal and watchdog follow the server (`watched_parent`).
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

#: Campaign environment variable: "forkserver" forks workers from a preloaded server.
START_ENV = "LAMBDAFUZZ_WORKER_START"
#: What the server imports once: what every worker imports before its handler.
PRELOAD = (
    "lambdafuzz.harness.worker",
    "boto3",
    "botocore.session",
    "moto",
    "moto.core.models",
    "moto.s3.models",
    "moto.dynamodb.models",
    "moto.sqs.models",
    "moto.sns.models",
)

_context: Any = None


def worker_context() -> Any:
    """The multiprocessing context workers start from (made once per process)."""
    global _context
    method = "forkserver" if os.environ.get(START_ENV, "").strip() == "forkserver" else "spawn"
    if _context is None or _context.get_start_method() != method:
        context = multiprocessing.get_context(method)
        if method == "forkserver":
            context.set_forkserver_preload(list(PRELOAD))
        _context = context
    return _context


def adopt_environment(environment: dict[str, str] | None) -> None:
    """Worker side, first thing: the campaign's environment at the start (a forked worker
    would otherwise have the server's, from its first start)."""
    if environment is not None:
        os.environ.clear()
        os.environ.update(environment)


def watched_parent(campaign_pid: int) -> int | None:
    """Worker side: the process whose end must end this worker - the campaign when it
    started the worker itself, the fork server (which ends with the campaign) when that
    did. None: the campaign is gone already."""
    parent = os.getppid()
    if not campaign_pid or parent == campaign_pid:
        return campaign_pid
    try:
        os.kill(campaign_pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return parent
