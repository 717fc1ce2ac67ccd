"""Handlers that misbehave on purpose, one function each.

Lines that fail carry a marker comment (`# HOSTILE:<name>`): the tests find their line
numbers by it, so the expected failure locations survive edits of this file.
"""

from __future__ import annotations

import ctypes  # loaded at import: native code is refused during tests, not at import
import json
import os
import resource
import signal
import sys
import tempfile
import threading
import time
import zlib

import boto3

_START_DIR = os.getcwd()
_REAL_LOADS = json.loads
_REAL_CLIENT = boto3.client
OK = {"statusCode": 200}


def _key(event):
    return event["Records"][0]["s3"]["object"]["key"]


def returns_ok(event, context):
    return {"statusCode": 200, "key": _key(event)}


# ------------------------------------------------------------------ hangs
def hangs(event, context):
    while True:
        time.sleep(0.05)  # HOSTILE:hang


def busy_loops(event, context):
    # a loop over several lines is dumped at whichever of them it is on when the deadline
    # comes: the hang is keyed by this function, so its re-run is the same failure
    n = 0
    while True:  # HOSTILE:busy
        n += 1
        n %= 7


def busy_generator(event, context):
    # a busy loop that resumes a generator is caught in it or here, by chance: a hang of
    # this function either way (a signal-time dump used to crash resuming the generator)
    def ticks():
        n = 0
        while True:
            yield n
            n += 1

    for n in ticks():  # HOSTILE:busy_generator
        if n < 0:
            break


def busy_genexpr(event, context):
    # `sum` runs in C between the generator expression's steps
    return sum(1 for _ in iter(int, 1))  # HOSTILE:genexpr


def busy_in_c(event, context):
    # C code that never checks for signals, holding the GIL: no Python-level signal handler
    # runs until it returns, so the stack comes from faulthandler
    return sum(range(10**15))  # HOSTILE:c_loop


# ------------------------------------------------------------------ deaths
def exits_hard(event, context):
    os._exit(3)  # HOSTILE:os_exit


def calls_sys_exit(event, context):
    sys.exit(4)  # HOSTILE:sys_exit


def segfaults(event, context):
    ctypes.string_at(0)  # HOSTILE:segv


def kills_itself(event, context):
    os.kill(os.getpid(), signal.SIGKILL)  # HOSTILE:sigkill


def signals_itself(event, context):
    # SIGUSR1 and SIGUSR2 are the worker's own (stack dumps), but their default action
    # ends the process, as it ends the Lambda runtime
    os.kill(os.getpid(), signal.SIGUSR2)  # HOSTILE:sigusr2


def raises_sigusr1(event, context):
    signal.raise_signal(signal.SIGUSR1)  # HOSTILE:sigusr1


def crashes_by_input(event, context):
    """Two different crashes, chosen by the input: they must stay two failures."""
    if len(_key(event)) % 2:
        ctypes.string_at(0)  # HOSTILE:segv_odd
    os._exit(5)  # HOSTILE:exit_even


# ------------------------------------------------------------------ resources
def memory_bomb(event, context):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))  # HOSTILE:memory


def raises_rlimit_then_allocates(event, context):
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # HOSTILE:rlimit
    hoard = [bytearray(64 * 1024 * 1024) for _ in range(32)]  # 2 GB: past any test limit
    return {"statusCode": 200, "escaped": len(hoard)}


def recurses(event, context, depth=0):
    return recurses(event, context, depth + 1)  # HOSTILE:recursion


def nested_eval(event, context):
    return eval("-" * 1_000_000 + "1")  # HOSTILE:nested_eval


def c_stack_overflow(event, context):
    """Deeply nested JSON decoded on a thread with a small C stack: the interpreter's
    recursion limit is not reached before the stack is."""
    threading.stack_size(32 * 1024)
    try:
        # after a pause, so that the crash finds this thread in join(), where it is located
        worker = threading.Timer(0.05, json.loads, args=("[" * 5000 + "]" * 5000,))
        worker.start()
        worker.join()  # HOSTILE:c_stack
    finally:
        threading.stack_size(0)
    return OK


def _deeper(depth):
    return list(map(_deeper, [depth + 1]))  # HOSTILE:thread_stack


def thread_stack_overflow(event, context):
    """Application code recursing on a thread with a small C stack (through `map`, so every
    level takes C stack) and the recursion limit lifted: the thread's stack overflows."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10**6)
    threading.stack_size(256 * 1024)
    try:
        worker = threading.Thread(target=_deeper, args=(0,))
        worker.start()
        worker.join()
    finally:
        threading.stack_size(0)
        sys.setrecursionlimit(limit)
    return OK


# ------------------------------------------------------------------ around the audit guard
# (guard-only mode; tests/harness/sandbox/test_hostile.py runs them in a loopback-only namespace)
def resolves_name_in_c(event, context):
    """The C method of `_socket.socket`, which resolves the name before its audit event."""
    import _socket
    import socket

    _socket.socket.connect(socket.socket(), ("example.com", 443))  # HOSTILE:c_connect
    return OK


def forks_and_execs_in_c(event, context):
    """`_posixsubprocess.fork_exec`, which has no audit event of its own."""
    import _posixsubprocess

    r, w = os.pipe()
    args = [b"/bin/true"]
    pid = _posixsubprocess.fork_exec(  # HOSTILE:fork_exec
        args, args, True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w,
        True, False, 0, None, None, None, -1, None, False,
    )  # fmt: skip
    os.waitpid(pid, 0)
    return {"statusCode": 200, "ran": pid}


# ------------------------------------------------------------------ state corruption
# Each reads the state first, as innocent code would, then corrupts it for the next test:
# the test after a corrupting one fails in the same worker, never in a fresh one.
def corrupts_environ(event, context):
    table = os.environ["TABLE_NAME"]  # HOSTILE:environ
    del os.environ["TABLE_NAME"]
    return {"statusCode": 200, "table": table}


def corrupts_cwd(event, context):
    if os.getcwd() != _START_DIR:
        raise RuntimeError("not started in the handler's directory")  # HOSTILE:cwd
    os.chdir("/")
    return OK


_OWN_FILE = os.path.relpath(os.path.abspath(__file__), _START_DIR)  # relative to the start


def chdirs_into_removed_dir(event, context):
    """Reads its own module by a path relative to where it started, then moves into a temp
    dir it removes: the next test's read works only if the worker moved it back."""
    with open(_OWN_FILE, "rb") as fh:  # HOSTILE:relative_read
        fh.read(1)
    away = tempfile.mkdtemp()
    os.chdir(away)
    os.rmdir(away)
    return OK


_poisoned = []


def poisons_its_worker(event, context):
    """About one input in eight (by its key) poisons the module: every later test in that
    worker fails the same way, never one in a fresh worker (a flaky failure that recurs
    for as long as the worker lives)."""
    if _poisoned:
        raise RuntimeError("poisoned by an earlier test")  # HOSTILE:poisoned
    if zlib.crc32(_key(event).encode()) % 8 == 0:
        _poisoned.append(True)
    return OK


def corrupts_json(event, context):
    data = json.loads('{"ok": true}')  # HOSTILE:json

    def broken(*args, **kwargs):
        raise ValueError("json.loads was replaced")

    json.loads = broken
    return {"statusCode": 200, "ok": data["ok"]}


def corrupts_boto3(event, context):
    s3 = boto3.client("s3")  # HOSTILE:boto3

    def broken(*args, **kwargs):
        raise RuntimeError("boto3.client was replaced")

    boto3.client = broken
    return {"statusCode": 200, "client": type(s3).__name__}


# ------------------------------------------------------------------ threads and processes
def leaves_thread(event, context):
    def forever():
        while True:
            time.sleep(0.01)
            print("still here", flush=True)

    threading.Thread(target=forever, daemon=True).start()
    return OK


def thread_exits_later(event, context):
    """Returns fine; its thread ends the worker while a later, innocent test runs."""

    def later():
        time.sleep(0.3)
        os._exit(9)  # HOSTILE:thread_exit

    if not any(t.name == "hostile-later" for t in threading.enumerate()):
        threading.Thread(target=later, name="hostile-later", daemon=True).start()
    time.sleep(0.05)
    return {"statusCode": 200, "key": _key(event)}


def forks(event, context):
    """Both the parent and the child return (each with the key of this test's input)."""
    pid = os.fork()
    return {"statusCode": 200, "key": _key(event), "child": pid == 0}


def forks_and_lingers(event, context):
    if os.fork() == 0:
        while True:
            time.sleep(1)
    return {"statusCode": 200, "key": _key(event)}


def calls_setsid(event, context):
    """Leaves the campaign's session (once: a session leader cannot do it again)."""
    if os.getsid(0) != os.getpid():
        os.setsid()
    return {"statusCode": 200, "key": _key(event)}


def naps(event, context):
    time.sleep(0.1)  # HOSTILE:nap
    return {"statusCode": 200, "key": _key(event)}


# ------------------------------------------------------------------ output and descriptors
class BadStr(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


def raises_bad_str(event, context):
    raise BadStr()  # HOSTILE:bad_str


_closed = []


def closes_fds(event, context):
    """The first test closes stdin/stdout/stderr and guesses the descriptors of the worker's
    pipe; the ones after it print, which works only if the worker put them back."""
    if not _closed:
        _closed.append(True)
        for fd in range(0, 64):
            try:
                os.close(fd)
            except OSError:
                pass
        return OK
    print("still printing", flush=True)  # HOSTILE:print_after_close
    return {"statusCode": 200, "key": _key(event)}


def kills_its_group(event, context):
    os.kill(0, signal.SIGKILL)  # HOSTILE:kill_group


def closes_every_fd(event, context):
    os.closerange(0, 1 << 16)  # HOSTILE:closerange
    return OK


def floods_output(event, context):
    chunk = "x" * (1 << 20)
    for _ in range(50):
        sys.stdout.write(chunk)
    sys.stdout.flush()
    return OK


def returns_huge(event, context):
    return {"statusCode": 200, "body": "y" * (50 << 20)}


# ------------------------------------------------------------------ descendants that hide
# libc's prctl, fetched at import: the guard refuses loading native code during tests
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl
_PR_SET_PDEATHSIG, _PR_SET_NAME = 1, 15


def _hide_grandchild():
    """Fork a grandchild that clears its parent-death signal, leaves the session, names
    itself `HOSTILE_TAG` (found by it in /proc) and, `HOSTILE_DELAY_S` later, writes a
    marker into `HOSTILE_DROP`; the child between them exits at once."""
    tag = os.environ.get("HOSTILE_TAG", "lfhostile")
    hidden_r, hidden_w = os.pipe()
    child = os.fork()
    if child:
        os.close(hidden_w)
        os.waitpid(child, 0)
        os.read(hidden_r, 1)  # the grandchild is hidden and named
        os.close(hidden_r)
        return
    try:
        if os.fork() == 0:
            _PRCTL(_PR_SET_PDEATHSIG, 0, 0, 0, 0)  # HOSTILE:grandchild
            os.setsid()
            _PRCTL(_PR_SET_NAME, ctypes.c_char_p(tag.encode()[:15]), 0, 0, 0)
            os.write(hidden_w, b"+")
            os.close(hidden_w)
            time.sleep(float(os.environ.get("HOSTILE_DELAY_S", "3")))
            drop = os.environ.get("HOSTILE_DROP", "")
            if drop:
                with open(os.path.join(drop, f"marker-{os.getpid()}"), "w") as fh:
                    fh.write("outlived the campaign\n")
    finally:
        os._exit(0)


def double_forks(event, context):
    _hide_grandchild()
    return {"statusCode": 200, "key": _key(event)}


def double_forks_then_spins(event, context):
    _hide_grandchild()
    while True:  # HOSTILE:spin_after_fork
        pass


_crashed = []


def double_forks_then_crashes(event, context):
    """The first test of a worker hides a grandchild and ends the worker; later ones pass."""
    if _crashed:
        return {"statusCode": 200, "key": _key(event)}
    _crashed.append(True)
    _hide_grandchild()
    os._exit(6)  # HOSTILE:exit_after_fork


# ------------------------------------------------------------------ secrets and own code
def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode(errors="replace")
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror}"


def reads_secrets(event, context):
    """What it can read of the environments it was started with, its parent's (the fork
    server's), its grandparent's and of files given by absolute path (`HOSTILE_PROBE`,
    ':'-separated)."""
    parent = os.getppid()
    with open(f"/proc/{parent}/stat") as fh:  # the campaign, when the fork server started it
        grandparent = int(fh.read().rsplit(")", 1)[1].split()[1])
    found = {
        "self": _read("/proc/self/environ"),
        "parent": _read(f"/proc/{parent}/environ"),
        "grandparent": _read(f"/proc/{grandparent}/environ"),
        "environ": "\n".join(f"{k}={v}" for k, v in os.environ.items()),
    }
    for path in filter(None, os.environ.get("HOSTILE_PROBE", "").split(":")):
        found[path] = _read(path)  # HOSTILE:reads_secrets
    print(json.dumps(found))  # the log: a return value is cut short
    return OK


def plants_a_module(event, context):
    """Drops a new module next to its own."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "planted.py"), "w") as fh:  # HOSTILE:plants_module
        fh.write("PLANTED = True\n")
    return OK


def appends_to_its_module(event, context):
    with open(__file__, "a") as fh:  # HOSTILE:appends_module
        fh.write("\nPLANTED = True\n")
    return OK


# ------------------------------------------------------------------ Ctrl-C (issue 39, item 4)
def traps_ctrl_c(event, context):
    """Catches the Ctrl-C that reaches the whole foreground process group, and runs on."""
    signal.signal(signal.SIGINT, lambda *_: None)
    while True:
        time.sleep(0.01)  # HOSTILE:traps_ctrl_c


def fails_slowly(event, context):
    """Fails every time, 0.2 s in: each replay of a `minimize` takes its time."""
    time.sleep(0.2)
    raise ValueError(f"slow failure on {_key(event)}")  # HOSTILE:fails_slowly
