"""Keep the code under test away from real AWS accounts and the network.

Three fences, each cheap enough to stay on for every test:

* `sandbox_env` builds the handler's environment: fake credentials, every inherited `AWS_*`
  variable dropped (real keys, profiles, container and web-identity credentials, endpoint
  overrides), every proxy variable dropped (`NO_PROXY` set to loopback), `HOME` an empty
  directory with `AWS_CONFIG_FILE`/`AWS_SHARED_CREDENTIALS_FILE` pointed inside it, so
  `boto3.Session(profile_name="prod")` fails instead of finding `~/.aws/credentials`.  A
  worker restores this environment exactly and empties `HOME` before every test.
* The audit guard (`arm()` for a worker's whole life, `armed()` for a block): a
  `sys.addaudithook` hook plus checks in front of `socket.socket`'s address methods.  While
  armed, a connect, sendto, bind or name lookup aimed at anything but loopback raises
  `SafetyError` *before* a packet leaves or a name is resolved, and so does starting a
  process, loading native code through ctypes (once the handler is imported; libc's
  network and process functions by name always) or raising the memory limit.  An audit hook can never be removed, so it is installed once and is a
  no-op when disarmed.  What it cannot see is listed below, at the guard; in a worker on the
  in-process emulator a network namespace covers that (`isolation.py`).
* `check_endpoint` refuses emulator endpoints that do not resolve to loopback.

How the harness classifies a violation: a `SafetyError` (also when wrapped by botocore, see
`sandbox_violation`) is a FAILURE whose cause is "sandbox violation"; the campaign goes on.
Handlers that swallow exceptions still leave the violation in `GuardRecord.violations`, so
check that after every armed run.
"""

from __future__ import annotations

import _socket
import atexit
import contextlib
import ipaddress
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lambdafuzz.errors import SafetyError

try:
    import resource
except ImportError:  # not on this OS: no memory limit to protect
    resource = None  # type: ignore[assignment]

FAKE_ACCESS_KEY_ID = "testing"
FAKE_SECRET_ACCESS_KEY = "testing"
FAKE_SESSION_TOKEN = "testing"

FAKE_CREDENTIALS: Mapping[str, str] = {
    "AWS_ACCESS_KEY_ID": FAKE_ACCESS_KEY_ID,
    "AWS_SECRET_ACCESS_KEY": FAKE_SECRET_ACCESS_KEY,
    "AWS_SESSION_TOKEN": FAKE_SESSION_TOKEN,
}

#: Hosts no SDK may send through a proxy (there is no proxy left to send through either).
NO_PROXY = "127.0.0.1,localhost,::1"

# Variables a user's `env:` may never set: each could lead an SDK to real credentials.
_FORBIDDEN_EXTRA = frozenset(
    {
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_SECURITY_TOKEN",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
        "AWS_ROLE_SESSION_NAME",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        "AWS_EC2_METADATA_DISABLED",
        "AWS_EC2_METADATA_SERVICE_ENDPOINT",
        "AWS_CREDENTIAL_EXPIRATION",
    }
)
# Variables the sandbox owns: `env:` may not move them.
_SANDBOX_OWNED = frozenset({"HOME", "TMPDIR", "BOTO_CONFIG"})

_SANDBOX_HOME: str | None = None


def _is_proxy_variable(name: str) -> bool:
    """HTTP_PROXY, https_proxy, ALL_PROXY, NO_PROXY, ...: urllib reads every `*_proxy`."""
    return name.lower().endswith("_proxy")


def _sandbox_home() -> str:
    """An empty HOME for a process that is not a worker (made once per process, emptied
    on every call: a handler may have written a profile into it)."""
    global _SANDBOX_HOME
    if _SANDBOX_HOME is None or not os.path.isdir(_SANDBOX_HOME):
        _SANDBOX_HOME = tempfile.mkdtemp(prefix="lambdafuzz-home-")
        atexit.register(shutil.rmtree, _SANDBOX_HOME, True)
    for name in os.listdir(_SANDBOX_HOME):
        path = os.path.join(_SANDBOX_HOME, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    return _SANDBOX_HOME


def sandbox_env(
    extra: Mapping[str, str] | None = None,
    *,
    region: str = "us-east-1",
    base: Mapping[str, str] | None = None,
    home: str | None = None,
    tmpdir: str | None = None,
) -> dict[str, str]:
    """The complete environment a handler runs with (`base` defaults to `os.environ`).

    Every inherited `AWS_*` and proxy variable is dropped; fake credentials, `region`,
    `HOME` (`home`, default: an empty per-process directory), the AWS config files inside
    it (not created: an SDK finds no profile) and `NO_PROXY` are set, `TMPDIR` when
    `tmpdir` is given; then `extra` (the config's `env:` plus the backend's
    `client_env()`) is applied.  `extra` may repeat the fake credentials but not set real
    ones, profiles, role/container credentials, proxies, HOME or TMPDIR, and an
    `AWS_ENDPOINT_URL*` in it must be loopback; otherwise SafetyError.
    """
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if not k.startswith("AWS_") and not _is_proxy_variable(k) and k not in _SANDBOX_OWNED
    }
    home = home if home is not None else _sandbox_home()
    env.update(FAKE_CREDENTIALS)
    env.update(
        HOME=home,
        AWS_DEFAULT_REGION=region,
        AWS_REGION=region,
        AWS_CONFIG_FILE=os.path.join(home, ".aws", "config"),
        AWS_SHARED_CREDENTIALS_FILE=os.path.join(home, ".aws", "credentials"),
        AWS_EC2_METADATA_DISABLED="true",
        NO_PROXY=NO_PROXY,
        no_proxy=NO_PROXY,
    )
    if tmpdir is not None:
        env["TMPDIR"] = tmpdir
    for key, value in (extra or {}).items():
        if key in FAKE_CREDENTIALS:
            if value != FAKE_CREDENTIALS[key]:
                raise SafetyError(
                    f"env sets {key} to a real-looking value; lambdafuzz runs handlers with "
                    f"fake credentials only ({key}={FAKE_CREDENTIALS[key]!r}). Remove it from `env:`."
                )
        elif key in _FORBIDDEN_EXTRA:
            raise SafetyError(
                f"env sets {key}={value!r}; lambdafuzz never lets a handler use AWS profiles, "
                "roles or credential providers, so it cannot reach a real account. Remove it from `env:`."
            )
        elif _is_proxy_variable(key):
            raise SafetyError(
                f"env sets {key}={value!r}; lambdafuzz runs handlers without proxies (every "
                "*_proxy variable is removed) so no traffic can be relayed off this machine. "
                "Remove it from `env:`."
            )
        elif key in _SANDBOX_OWNED:
            raise SafetyError(
                f"env sets {key}={value!r}; lambdafuzz gives every test an empty HOME and a "
                "private temp dir (so no credentials resolve from a real ~/.aws). Remove it "
                "from `env:`."
            )
        elif key.startswith("AWS_ENDPOINT_URL"):
            check_endpoint(value)
        env[key] = value
    return env


@contextlib.contextmanager
def apply_sandbox_env(
    extra: Mapping[str, str] | None = None, *, region: str = "us-east-1"
) -> Iterator[dict[str, str]]:
    """Replace `os.environ` by `sandbox_env(extra)` for the block, then restore it exactly."""
    saved = dict(os.environ)
    env = sandbox_env(extra, region=region, base=saved)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield env
    finally:
        os.environ.clear()
        os.environ.update(saved)


# --- the audit guard ----------------------------------------------------------------------
#
# What an audit hook can and cannot see, and what covers the rest:
#
# * CPython raises `socket.connect`/`sendto`/`sendmsg`/`bind` only *after* it has resolved a
#   host name in the address (a DNS query).  So the Python-level `socket.socket` methods are
#   wrapped (`_install_socket_checks`): a name that is not loopback is refused before the C
#   method runs.  The same wrappers replace the C methods of `_socket.socket` itself
#   (`_install_c_socket_checks`), so `_socket.socket.connect(s, (name, 443))` and
#   `super(socket.socket, s).connect(...)` are refused before any DNS query too.
# * `_posixsubprocess.fork_exec` starts a process without an audit event: it is wrapped in
#   its module and in `subprocess` (`_install_process_checks`), and loading a second copy of
#   the module is refused.  ctypes lookups of libc's network, process, syscall and dynamic
#   linker functions by name (`connect`, `__connect`, `syscall`, `dlsym`, ...) are refused
#   whenever the guard is armed, at import too (`_dangerous_symbol`).
# * Native code is still invisible: a C extension, or ctypes calling a function whose
#   address it found without naming it (read from libc's symbol table), never raises an
#   audit event; nor does code that digs the unwrapped functions out of the interpreter (gc,
#   closures).  For those the worker's network namespace (`isolation.py`) is the fence:
#   there, every such connect fails with ENETUNREACH (tests/harness/sandbox/test_network_namespace.py
#   proves it).  Workers without one (LocalStack, an external endpoint, a kernel that
#   refuses namespaces, `LAMBDAFUZZ_ISOLATION=guard-only`) rely on this guard alone.
# * An audit hook cannot be removed, but code that writes process memory (ctypes again) can
#   defeat any in-process check; again the namespace is what makes that harmless.
# * Unix-domain sockets are allowed (local IPC, the emulator's Docker socket); a filesystem
#   socket reaches whatever listens on it, inside a namespace too.

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
# Families whose addresses are (host, port, ...) tuples checked against loopback; AF_UNIX
# and AF_NETLINK are local; every other family (AF_PACKET, AF_VSOCK, ...) is refused.
_INET_FAMILIES = frozenset({int(socket.AF_INET), int(socket.AF_INET6)})
_LOCAL_FAMILIES = frozenset(
    int(getattr(socket, name)) for name in ("AF_UNIX", "AF_NETLINK") if hasattr(socket, name)
)


@dataclass(slots=True)
class GuardRecord:
    """What the guard refused during one test (or one armed block); `violations` survives
    a handler that swallows the error."""

    violations: list[SafetyError] = field(default_factory=list)


@dataclass(slots=True)
class _Guard:
    record: GuardRecord
    processes: bool  # refuse subprocess / exec / spawn / system
    native_code: bool  # refuse ctypes dlopen / dlsym


_guard: _Guard | None = None  # the one object the audit hook reads; None: disarmed
_hook_installed = False
_allowed_names: set[str] = set(_LOOPBACK_NAMES)


def _is_loopback_ip(host: str) -> bool | None:
    """True/False for an IP literal, None for a host name."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if ip.is_loopback:
        return True
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(mapped is not None and mapped.is_loopback)


def _host_text(host: object) -> str | None:
    """The host exactly as the C socket code reads it: str, bytes or bytearray, through the
    base type so a subclass cannot show the guard a different value; None for anything else."""
    if isinstance(host, str):
        return str.__getitem__(host, slice(None))
    if isinstance(host, bytes):
        return bytes.__getitem__(host, slice(None)).decode("ascii", "replace")
    if isinstance(host, bytearray):
        return bytes(bytearray.__getitem__(host, slice(None))).decode("ascii", "replace")
    return None


def _host_allowed(host: object) -> bool:
    if host is None:  # getaddrinfo(None, port): the local wildcard
        return True
    text = _host_text(host)
    if text is None:
        return False
    text = text.strip("[]").lower().rstrip(".")
    loopback = _is_loopback_ip(text)
    if loopback is not None:
        return loopback
    return text in _allowed_names


def _violation(guard: _Guard, what: str, why: str) -> SafetyError:
    error = SafetyError(
        f"sandbox violation: the code under test tried to {what} during a test; {why}"
    )
    guard.record.violations.append(error)
    return error


_WHY = (
    "lambdafuzz only allows loopback (127.0.0.0/8, ::1, localhost) so a handler can never "
    "reach real AWS or any other host. Point the client at the emulator (AWS_ENDPOINT_URL "
    "is set for you) or mock the call."
)
_WHY_PROCESS = (
    "lambdafuzz runs handlers without subprocesses: a child process could reach what the "
    "handler may not. Call the code in-process or mock the call."
)
_WHY_NATIVE = (
    "lambdafuzz refuses ctypes once the handler is imported: native calls bypass every "
    "check. Load libraries at import time or mock the call."
)
_WHY_NATIVE_SYMBOL = (
    "lambdafuzz refuses ctypes lookups of libc's network, process and syscall functions "
    "(at import too): calling them bypasses every check. Use Python's socket and "
    "subprocess modules, or mock the call."
)
_WHY_LIMIT = (
    "lambdafuzz caps a worker's memory (RLIMIT_AS) so a runaway handler cannot take the "
    "machine down; the cap cannot be raised."
)


def _shown(value: object) -> str:
    """`value` for a message, without calling anything the code under test defined."""
    text = _host_text(value)
    if text is not None:
        return text if isinstance(value, str) else f"{type(value).__name__}({text!r})"
    if type(value) in (int, float, type(None), list, tuple):
        try:
            return repr(value)[:200]
        except Exception:  # noqa: BLE001 - a list holding anything
            pass
    return f"<{type(value).__name__}>"


def _refuse(guard: _Guard, what: str, host: object, port: object) -> None:
    shown = _shown(host)
    target = f"{shown}:{_shown(port)}" if port not in (None, 0, "") else shown
    raise _violation(guard, f"{what} {target}", _WHY)


def _family(sock: object) -> int | None:
    """The socket's family from the C object (a subclass cannot override it)."""
    if isinstance(sock, _socket.socket):
        return int(_C_FAMILY.__get__(sock, _socket.socket))
    return None


_C_FAMILY = _socket.socket.family  # the C member, below socket.socket's property


def _check_address(guard: _Guard, sock: object, address: object, verb: str) -> None:
    family = _family(sock)
    if family in _LOCAL_FAMILIES:
        return
    if family is not None and family not in _INET_FAMILIES:
        name = _family_name(family)
        _refuse(guard, f"use a {name} socket to {verb}", address, None)
    if isinstance(address, tuple) and tuple.__len__(address) >= 1:
        host = tuple.__getitem__(address, 0)
        port = tuple.__getitem__(address, 1) if tuple.__len__(address) > 1 else None
        if not _host_allowed(host):
            _refuse(guard, verb, host, port)
    elif family is not None or not isinstance(address, str | bytes | bytearray):
        _refuse(guard, verb, address, None)


def _family_name(family: int) -> str:
    try:
        return socket.AddressFamily(family).name
    except ValueError:
        return f"family {family}"


def _on_address(verb: str, index: int) -> Callable[[_Guard, tuple[object, ...]], None]:
    def check(guard: _Guard, args: tuple[object, ...]) -> None:
        if len(args) > index:
            _check_address(guard, args[0], args[index], verb)

    return check


def _on_lookup(guard: _Guard, args: tuple[object, ...]) -> None:
    if args and not _host_allowed(args[0]):
        _refuse(guard, "look up", args[0], args[1] if len(args) > 1 else None)


def _on_name_info(guard: _Guard, args: tuple[object, ...]) -> None:
    address = args[0] if args else None
    if isinstance(address, tuple) and tuple.__len__(address) >= 1:
        host = tuple.__getitem__(address, 0)
        if not _host_allowed(host):
            _refuse(guard, "look up", host, None)
    else:
        _refuse(guard, "look up", address, None)


def _on_process(guard: _Guard, args: tuple[object, ...]) -> None:
    if guard.processes:
        shown = " ".join(_shown(a) for a in args[:2] if a is not None)[:200]
        raise _violation(guard, f"start a process ({shown})", _WHY_PROCESS)


def _dangerous_symbol(name: object) -> bool:
    """A libc function that would go around the guard if called through ctypes: its
    network, name-lookup, process and raw-syscall entry points, and the dynamic linker
    (which would look them up unseen); `__connect`, `__libc_fork` ... count as their name."""
    if not isinstance(name, str):
        return False
    base = str.lower(name).lstrip("_").removeprefix("libc_")
    return base in _DANGEROUS_SYMBOLS or base.startswith(("gethostby", "res_n", "res_q", "res_s"))


_DANGEROUS_SYMBOLS = frozenset(
    {
        "socket", "socketpair", "connect", "bind", "sendto", "sendmsg", "sendmmsg",
        "getaddrinfo", "getnameinfo", "res_mkquery", "system", "popen", "fork", "vfork",
        "forkpty", "clone", "clone3", "syscall", "posix_spawn", "posix_spawnp", "execl",
        "execle", "execlp", "execv", "execve", "execvp", "execvpe", "execveat", "fexecve",
        "dlopen", "dlmopen", "dlsym", "dlvsym",
    }
)  # fmt: skip


def _on_native(guard: _Guard, args: tuple[object, ...]) -> None:
    if len(args) > 1 and _dangerous_symbol(args[1]):  # also at import: never by name
        raise _violation(
            guard, f"look up libc's {_shown(args[1])} through ctypes", _WHY_NATIVE_SYMBOL
        )
    if guard.native_code:
        shown = ", ".join(_shown(a) for a in args[:2])[:200]
        raise _violation(guard, f"load native code through ctypes ({shown})", _WHY_NATIVE)


def _on_import(guard: _Guard, args: tuple[object, ...]) -> None:
    # a second copy of a wrapped extension module (`_process_checks`) would bring back
    # its unchecked functions: `del sys.modules[...]` and import, or a loader by hand
    name = args[0] if args else None
    if (
        guard.processes
        and isinstance(name, str)
        and str.rpartition(name, ".")[2] in _wrapped_modules
    ):
        raise _violation(guard, f"load a second copy of {name}", _WHY_PROCESS)


def _on_rlimit(guard: _Guard, args: tuple[object, ...]) -> None:
    # setrlimit(resource, limits) / prlimit(pid, resource, limits); limits None: a read
    if resource is None:
        return
    which, limits = (args[0], args[1]) if len(args) == 2 else (args[1], args[2])
    if which != resource.RLIMIT_AS or limits is None:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        new_soft, new_hard = limits  # type: ignore[misc]
    except (TypeError, ValueError):
        return  # resource itself rejects it
    if hard == resource.RLIM_INFINITY:
        return
    if new_hard in (resource.RLIM_INFINITY, -1) or new_hard > hard or new_soft > hard:
        raise _violation(
            guard, f"raise its memory limit (RLIMIT_AS to {_shown(limits)})", _WHY_LIMIT
        )


_CHECKS: dict[str, Callable[[_Guard, tuple[object, ...]], None]] = {
    "socket.connect": _on_address("connect to", 1),
    "socket.sendto": _on_address("send to", 1),
    "socket.sendmsg": _on_address("send to", 1),
    "socket.bind": _on_address("listen on", 1),
    "socket.getaddrinfo": _on_lookup,
    "socket.gethostbyname": _on_lookup,
    "socket.gethostbyaddr": _on_lookup,
    "socket.getnameinfo": _on_name_info,
    "subprocess.Popen": _on_process,
    "os.system": _on_process,
    "os.exec": _on_process,
    "os.posix_spawn": _on_process,
    "os.spawn": _on_process,
    "os.startfile": _on_process,
    "ctypes.dlopen": _on_native,
    "ctypes.dlsym": _on_native,
    "ctypes.dlsym/handle": _on_native,
    "import": _on_import,
    "resource.setrlimit": _on_rlimit,
    "resource.prlimit": _on_rlimit,
}


def _audit(event: str, args: tuple[object, ...]) -> None:
    # Runs for *every* audit event in the process (imports, opens, sys._getframe ...):
    # one dict lookup for the events it does not check.
    check = _CHECKS.get(event)
    if check is None:
        return
    guard = _guard
    if guard is not None:
        check(guard, args)


# Python-level checks that run *before* the C socket methods resolve a name.
def _guarded(name: str, index: int, verb: str) -> Callable[..., Any]:
    original = getattr(_socket.socket, name)

    def method(self: socket.socket, *args: Any, **kwargs: Any) -> Any:
        guard = _guard
        if guard is not None and len(args) > index:
            _check_address(guard, self, args[index], verb)
        return original(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = original.__doc__
    return method


def _install_socket_checks() -> None:
    if getattr(socket.socket.connect, "__lambdafuzz__", False):
        return
    for name, index, verb in (
        ("connect", 0, "connect to"),
        ("connect_ex", 0, "connect to"),
        ("bind", 0, "listen on"),
    ):
        method = _guarded(name, index, verb)
        method.__lambdafuzz__ = True  # type: ignore[attr-defined]
        setattr(socket.socket, name, method)
    original_sendto = _socket.socket.sendto
    original_sendmsg = _socket.socket.sendmsg

    def sendto(self: socket.socket, data: Any, *args: Any) -> Any:
        guard = _guard
        if guard is not None and args:
            _check_address(guard, self, args[-1], "send to")
        return original_sendto(self, data, *args)

    def sendmsg(self: socket.socket, *args: Any) -> Any:
        guard = _guard
        if guard is not None and len(args) > 3 and args[3] is not None:
            _check_address(guard, self, args[3], "send to")
        return original_sendmsg(self, *args)

    socket.socket.sendto = sendto  # type: ignore[method-assign]
    socket.socket.sendmsg = sendmsg  # type: ignore[method-assign]


# C functions that act without an audit event, wrapped where code finds them by name.
_wrapped_modules: set[str] = set()


def _install_c_socket_checks() -> None:
    """The same checks on the C methods of `_socket.socket` (`_socket.socket.connect(s,
    (name, 443))`, `super(socket.socket, s).connect(...)`), which resolve a name in C
    before their audit event: the C type is immutable, so its method table (the dict
    behind `__dict__`) is changed in place and the type's caches invalidated."""
    import ctypes
    import gc

    base = _socket.socket
    if getattr(base.connect, "__lambdafuzz__", False):
        return
    (table,) = [d for d in gc.get_referents(base.__dict__) if isinstance(d, dict)]
    for name in ("connect", "connect_ex", "bind", "sendto", "sendmsg"):
        # the checked methods of `socket.socket`, which call the C methods they replace
        table[name] = socket.socket.__dict__[name]
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(base))


def _install_process_checks() -> None:
    """`_posixsubprocess.fork_exec` (what `subprocess.Popen` calls after its audit event)
    forks and execs in C without one: refused here, in the module and in `subprocess`."""
    try:
        import _posixsubprocess
    except ImportError:  # not on this OS
        return
    import subprocess

    original = _posixsubprocess.fork_exec
    if getattr(original, "__lambdafuzz__", False):
        return

    def fork_exec(*args: Any, **kwargs: Any) -> Any:
        guard = _guard
        if guard is not None and guard.processes:
            shown = _shown(args[0]) if args else ""
            raise _violation(guard, f"start a process ({shown[:200]})", _WHY_PROCESS)
        return original(*args, **kwargs)

    fork_exec.__lambdafuzz__ = True  # type: ignore[attr-defined]
    fork_exec.__doc__ = original.__doc__
    _posixsubprocess.fork_exec = fork_exec
    if getattr(subprocess, "_fork_exec", None) is original:
        subprocess._fork_exec = fork_exec  # type: ignore[attr-defined]
    _wrapped_modules.add("_posixsubprocess")


def _install_hook() -> None:
    global _hook_installed
    if not _hook_installed:
        _install_socket_checks()
        with contextlib.suppress(Exception):  # without ctypes: the wrappers above only
            _install_c_socket_checks()
        _install_process_checks()
        sys.addaudithook(_audit)
        _hook_installed = True


@contextlib.contextmanager
def armed(*, processes: bool = True, native_code: bool = False) -> Iterator[GuardRecord]:
    """Refuse non-loopback network access inside the block (all threads of the process);
    `processes`: also subprocesses; `native_code`: also ctypes loading."""
    global _guard
    _install_hook()
    previous, record = _guard, GuardRecord()
    _guard = _Guard(record, processes=processes, native_code=native_code)
    try:
        yield record
    finally:
        _guard = previous


def arm(*, processes: bool = True, native_code: bool = False) -> GuardRecord:
    """Arm the guard for the rest of this process (a worker arms it before the handler's
    import); returns the record violations go to until `next_record()`."""
    global _guard
    _install_hook()
    record = GuardRecord()
    _guard = _Guard(record, processes=processes, native_code=native_code)
    return record


def refuse_native_code() -> None:
    """From now on also refuse ctypes loading (a worker calls this once the handler is
    imported: libraries may load native code at import, a test may not)."""
    if _guard is None:
        raise RuntimeError("refuse_native_code() while the guard is not armed")
    _guard.native_code = True


def next_record() -> GuardRecord:
    """Start a fresh record (one per test) and return it."""
    if _guard is None:
        raise RuntimeError("next_record() while the guard is not armed")
    _guard.record = GuardRecord()
    return _guard.record


def is_armed() -> bool:
    return _guard is not None


def allow_host(name: str) -> None:
    """Let the guard resolve `name`: only for names `check_endpoint` proved are loopback."""
    _allowed_names.add(name.lower().rstrip("."))


def check_endpoint(url: str) -> str:
    """Return `url` if it is http(s) on a loopback host; raise SafetyError otherwise.

    Host names are resolved (call this before arming the guard) and every address they
    resolve to must be loopback; the name is then allowed through the guard.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SafetyError(
            f"endpoint {url!r} is not an http(s) URL with a host; expected e.g. http://127.0.0.1:4566"
        )
    host = parts.hostname.lower().rstrip(".")
    loopback = _is_loopback_ip(host)
    if loopback is None:
        try:
            infos = socket.getaddrinfo(host, parts.port or 80, proto=socket.IPPROTO_TCP)
        except OSError as e:
            raise SafetyError(f"endpoint {url!r}: cannot resolve {host!r} ({e})") from e
        addresses = sorted({info[4][0] for info in infos})
        loopback = bool(addresses) and all(_is_loopback_ip(str(a)) for a in addresses)
        if loopback:
            allow_host(host)
        else:
            host = f"{host} ({', '.join(map(str, addresses))})"
    if not loopback:
        raise SafetyError(
            f"endpoint {url!r} is not on loopback: {host} is not 127.0.0.0/8, ::1 or localhost. "
            "lambdafuzz only talks to emulators on this machine so it can never touch a real account."
        )
    return url


def sandbox_violation(exc: BaseException) -> SafetyError | None:
    """The sandbox violation behind `exc`, if any: a SafetyError or a missing AWS profile.

    Walks `__cause__`/`__context__` and botocore's wrapped `error` (botocore wraps what the
    guard raises in `HTTPClientError`). A `ProfileNotFound` becomes a SafetyError whose message
    says the handler asked for a named profile, which lambdafuzz never provides.
    """
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, SafetyError):
            return e
        if type(e).__name__ == "ProfileNotFound" and type(e).__module__.startswith("botocore"):
            profile = getattr(e, "kwargs", {}).get("profile", "?")
            return SafetyError(
                f"sandbox violation: the handler asked for the AWS profile {profile!r}; lambdafuzz "
                "runs handlers with fake credentials and no profiles (AWS_CONFIG_FILE and "
                "AWS_SHARED_CREDENTIALS_FILE are empty) so it can never use a real account. "
                "Create clients without profile_name, as code running in Lambda does."
            )
        wrapped = getattr(e, "kwargs", None)
        if isinstance(wrapped, dict) and isinstance(wrapped.get("error"), BaseException):
            todo.append(wrapped["error"])
        todo.extend((e.__cause__, e.__context__))
    return None
