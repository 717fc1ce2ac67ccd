"""The environment every process lambdafuzz starts begins with: nothing of the user's.

A process's initial environment is more than `os.environ`: the kernel keeps the strings it
was started with, and `/proc/<pid>/environ` shows them for the process's whole life, to it
and to every process of the same user that can see it - whatever `os.environ.clear()` did
since.  A worker forked from the fork server shares the server's; a spawned one, the
campaign's at that start.  So what a process lambdafuzz starts (the fork server, the
resource tracker, a spawned worker, a janitor) is given at its start is `worker_environment`
of the campaign's: an allow-list of what Python and lambdafuzz need (`PATH`, the locale,
`PYTHON*`, `LAMBDAFUZZ_*`, `TMPDIR`, ...) with any name that looks like a secret left out
too.  No `AWS_*` variable (keys, profiles, config-file paths, container or web-identity
tokens), no proxy, no `HOME`, no `GITHUB_TOKEN`, `CI_JOB_TOKEN`, `SSH_AUTH_SOCK`, ... A
worker's handler then gets `sandbox_env` of it: the fake credentials, the sandbox's HOME
and TMPDIR, and what the function's config sets (`env:`) - as on Lambda, a variable of the
shell that started the campaign is not the function's.

multiprocessing starts its server and spawned interpreters with the C environment of the
moment (`_posixsubprocess.fork_exec` without `env`); `process_environment` makes that the
clean one around a start, leaving `os.environ` as it is.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

#: Variables a process lambdafuzz starts keeps, by name and by prefix.
KEPT_NAMES = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "VIRTUAL_ENV", "LD_LIBRARY_PATH"}
)
KEPT_PREFIXES = ("LC_", "PYTHON", "LAMBDAFUZZ_", "MOTO_", "COVERAGE_", "COV_CORE_")
#: ... unless its name holds one of these (a `PYTHON_KEYRING_PASSWORD` is not kept).
SECRET_WORDS = ("TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH", "KEY", "COOKIE", "SESSION")


def kept(name: str) -> bool:
    """Whether a process lambdafuzz starts gets the campaign's variable `name`."""
    upper = name.upper()
    if any(word in upper for word in SECRET_WORDS) or upper.endswith("_PROXY"):
        return False
    return name in KEPT_NAMES or name.startswith(KEPT_PREFIXES)


def worker_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What of `environ` (default: `os.environ`) a process lambdafuzz starts is given."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if kept(name)}


def initial_environment_clean() -> bool:
    """Whether this process's initial environment (`/proc/self/environ`) holds kept names
    only (False where it cannot be read)."""
    try:
        with open("/proc/self/environ", "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    names = (entry.split(b"=", 1)[0] for entry in data.split(b"\0") if entry)
    return all(kept(name.decode(errors="replace")) for name in names)


@contextlib.contextmanager
def process_environment(environment: Mapping[str, str]) -> Iterator[None]:
    """The C environment (what a process started without an explicit `env` inherits, and
    what its `/proc/<pid>/environ` then shows) is exactly `environment` for the block;
    `os.environ` is not touched, and the C environment is put back to it afterwards.

    A thread of this process that calls C's `getenv` during the block sees the clean one
    (Python's `os.environ` is its own copy).  Cost: one `putenv`/`unsetenv` per variable
    and start, microseconds."""
    saved = {**_c_environment(), **os.environ}
    try:
        for name in saved:
            if name not in environment:
                os.unsetenv(name)
        for name, value in environment.items():
            os.putenv(name, value)
        yield
    finally:
        for name in environment:
            if name not in saved:
                os.unsetenv(name)
        for name, value in saved.items():
            os.putenv(name, value)


def _c_environment() -> dict[str, str]:
    """The C environment, which can hold what `os.environ` does not: a library may
    `setenv` after Python copied it at start (ncurses sets LINES and COLUMNS under a
    terminal, and pytest's run showed them in a worker's /proc/self/environ)."""
    import ctypes

    try:
        entries = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
    except (OSError, ValueError, AttributeError):
        return {}
    found = {}
    for i in range(100_000):  # bounded: a C environment ends with a NULL entry
        entry = entries[i]
        if entry is None:
            break
        name, _, value = entry.decode("utf-8", "surrogateescape").partition("=")
        found[name] = value
    return found


__all__ = [
    "KEPT_NAMES",
    "KEPT_PREFIXES",
    "initial_environment_clean",
    "kept",
    "process_environment",
    "worker_environment",
]
