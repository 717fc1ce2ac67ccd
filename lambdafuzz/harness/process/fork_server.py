"""How worker processes start: forked from a server that imported boto3 and moto once.

A spawned worker is a new interpreter that imports lambdafuzz's harness, boto3 and moto
before it can start its emulator and import the handler: 0.61 s a worker for gradebook,
most of it those imports (scratch timing, 3 starts). A campaign starts workers often: one
per worker at the start, a fresh one for each new failure's re-run, one after every crash
or hang. multiprocessing's fork server is a clean, single-threaded process, started once
per campaign process, that imports `PRELOAD` and forks a worker per start: 0.15 s each
after the server's own first start (scratch timing, 3 starts, same machine).

The server listens on a socket file in a directory multiprocessing makes under $TMPDIR
and removes at a normal exit. So that a SIGKILL of the campaign's whole process group
(the server with it) leaves nothing behind either, that directory is made inside one a
janitor owns (`janitor.spawn_janitor`: a process in a session of its own that removes it
once the campaign has exited). An abstract socket would need no file, but the server
authenticates no one (Python 3.12/3.13) and anyone on the host could reach it.

What a spawned worker got from the campaign at its start, a forked one gets too: the
start's `sys.path` and working directory travel with the process (multiprocessing's
preparation data), and what a worker keeps of the campaign's environment at the start
(`clean_env.worker_environment`) is passed in and put in place first (`adopt_environment`);
the server itself is started with that clean environment too, so that neither its nor a
worker's `/proc/<pid>/environ` holds anything of the user's. The server runs no user code; each worker still
isolates itself before it imports the handler. A forked worker is the child of the
server, not of the campaign: the server ends when the campaign does (the end of its pipe),
and the worker's parent-death signal and watchdog follow the server (`watched_parent`).

`LAMBDAFUZZ_WORKER_START=spawn` in the campaign's environment starts every worker as a new
interpreter instead; so does a campaign whose socket directory no janitor can guard, whose
$TMPDIR is too long for a socket path, or whose server failed to start a worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

#: Campaign environment variable: "spawn" starts workers as new interpreters.
START_ENV = "LAMBDAFUZZ_WORKER_START"
#: What the server imports once: what every worker imports before its handler.
PRELOAD = (
    "lambdafuzz.harness.process.runtime",
    "boto3",
    "botocore.session",
    "moto",
    "moto.core.models",
    "moto.s3.models",
    "moto.dynamodb.models",
    "moto.sqs.models",
    "moto.sns.models",
    "lambdafuzz.harness.process.server_warmup",  # last: what a worker's first test loads
)

#: Longest socket directory: a Unix socket's path has room for 107 bytes, and
#: multiprocessing adds `/pymp-XXXXXXXX/listener-XXXXXXXX` (32) to it.
MAX_SOCKET_DIR = 107 - 32 - 1

_context: Any = None
_guard: int | None = None  # held open while the socket directory is in use (`_guarded`)
_failed = False  # the server could not start here: spawn from now on (`fall_back`)


def worker_context() -> Any:
    """The multiprocessing context workers start from (made once per process)."""
    global _context
    wanted = os.environ.get(START_ENV, "").strip() or "forkserver"
    forked = wanted == "forkserver" and not _failed and _guarded()
    method = "forkserver" if forked else "spawn"
    if _context is None or _context.get_start_method() != method:
        context = multiprocessing.get_context(method)
        if method == "forkserver":
            context.set_forkserver_preload(list(PRELOAD))
        _context = context
    return _context


def _guarded() -> bool:
    """Whether multiprocessing's temp dir (the server's socket) lies inside a directory
    a janitor removes once this process has exited, however it ends (made on first use)."""
    global _guard
    if _guard is not None:
        return True
    import multiprocessing.util
    import secrets
    import tempfile

    from lambdafuzz.harness.sandbox.janitor import spawn_janitor

    base = os.path.join(tempfile.gettempdir(), f"lf-mp-{secrets.token_hex(4)}")
    if len(os.fsencode(base)) > MAX_SOCKET_DIR:  # a long $TMPDIR: no room for the socket
        return False
    guard = spawn_janitor(base)
    if guard is None:
        return False
    saved = tempfile.tempdir
    tempfile.tempdir = base  # where multiprocessing makes its dir, if it has none yet
    try:
        made = multiprocessing.util.get_temp_dir()
    finally:
        tempfile.tempdir = saved
    if os.path.dirname(made) != base:  # made before, elsewhere: no janitor covers it
        os.close(guard)
        return False
    _guard = guard
    return True


_main_lock = threading.Lock()  # starts on two threads (a re-run's spare) must not interleave


@contextlib.contextmanager
def campaign_main_hidden() -> Iterator[None]:
    """Start a worker without the campaign's main module.  multiprocessing imports the
    starting process's `__main__` again in every child (as `__mp_main__`, by its module
    name or its file), for targets defined there; a worker's target is `worker_main`,
    imported by name, and needs none of it.  In a Ray actor that main module is Ray's
    worker script: every worker and spare imported Ray (187 modules, 0.3-0.35 s of CPU a
    start: 0.45 s a spare under Ray against 0.1 s locally, `/proc` CPU of each, gradebook);
    for `lambdafuzz fuzz` it is the CLI's entry script.  Hidden only while the process
    starts (multiprocessing reads it then)."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    with _main_lock:
        saved = {
            name: main.__dict__[name] for name in ("__spec__", "__file__") if name in vars(main)
        }
        main.__spec__ = None
        vars(main).pop("__file__", None)
        try:
            yield
        finally:
            vars(main).pop("__spec__", None)
            vars(main).update(saved)


def adopt_environment(environment: dict[str, str] | None) -> None:
    """Worker side, first thing: what it keeps of the campaign's environment at the start
    (a forked worker would otherwise have the server's, from its first start)."""
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


def stop_server() -> None:
    """Kill this process's fork server now, for a campaign that stops at once (Ctrl-C):
    the server notices the campaign's end by itself, but not while it still imports
    `PRELOAD` (1-2 s after its start), and multiprocessing's resource tracker waits for it."""
    from multiprocessing import forkserver

    with contextlib.suppress(Exception):  # none started, or gone already
        server = forkserver._forkserver
        pid = server._forkserver_pid
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def fall_back() -> None:
    """The server failed to start a worker (its socket, its process): every later start
    in this process is a new interpreter."""
    global _failed
    _failed = True
