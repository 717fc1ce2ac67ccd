"""Handlers that try to get out of the sandbox, one way each (tests/harness/sandbox/test_guard_holes.py
and test_network_namespace.py).  The ctypes pointers are fetched at import, when native code
may still load, so calling them later bypasses every audit hook: only the worker's network
namespace and dropped capabilities stop them."""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import struct
import sys
import tempfile
import threading
import time

_libc = ctypes.CDLL(None, use_errno=True)


def _unnamed(name: str):
    """libc's `name` without asking ctypes for it by name (the guard refuses `connect`,
    `socket`, `system` ... by name, at import too): its distance in libc's dynamic symbol
    table from `getpid`, whose address ctypes gives.  What a determined handler can do, and
    why the namespace exists."""
    with open("/proc/self/maps") as fh:
        path = next(line.split()[-1] for line in fh if "/libc.so" in line or "/libc-" in line)
    with open(path, "rb") as fh:
        elf = fh.read()
    shoff, shentsize, shnum = struct.unpack_from("<Q10xHH", elf, 0x28)
    sections = [struct.unpack_from("<IIQQQQII", elf, shoff + i * shentsize) for i in range(shnum)]
    dynsym = next(sec for sec in sections if sec[1] == 11)  # SHT_DYNSYM
    strtab = sections[dynsym[6]]
    values = {}
    for offset in range(dynsym[4], dynsym[4] + dynsym[5], 24):
        st_name, _info, _other, _shndx, value, _size = struct.unpack_from("<IBBHQQ", elf, offset)
        start = strtab[4] + st_name
        symbol = elf[start : elf.index(b"\0", start)].decode()
        if symbol in (name, "getpid") and value:
            values[symbol] = value
    getpid = ctypes.cast(_libc.getpid, ctypes.c_void_p).value
    return _libc._FuncPtr(getpid - values["getpid"] + values[name])


_c_socket = _unnamed("socket")
_c_connect = _unnamed("connect")
_c_setrlimit = _libc.setrlimit
_c_system = _unnamed("system")
_calls = {"n": 0}
_thread_outcome: list[str] = []


def _outcome(call) -> str:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the point is what happened
        return type(exc).__name__
    return "done"


# ------------------------------------------------------------------ network
def starts_thread(event, context):
    """Starts a thread that connects after the handler returned; reports the last one's."""

    def later() -> None:
        time.sleep(0.3)
        _thread_outcome.append(
            _outcome(lambda: socket.create_connection(("8.8.8.8", 443), timeout=2).close())
        )

    threading.Thread(target=later, daemon=True).start()
    return {"thread": list(_thread_outcome)}


def connects_to_name(event, context):
    return _outcome(lambda: socket.socket().connect(("lambdafuzz-probe.example", 443)))


def native_connect(event, context):
    """libc socket + connect to 8.8.8.8:443 through pointers fetched at import."""
    fd = _c_socket(socket.AF_INET, socket.SOCK_STREAM, 0)
    address = struct.pack("!HH4s8x", socket.AF_INET, 443, socket.inet_aton("8.8.8.8"))
    address = struct.pack("=H", socket.AF_INET) + address[2:]  # sa_family is host order
    result = _c_connect(fd, ctypes.c_char_p(address), len(address))
    code = ctypes.get_errno() if result != 0 else 0
    os.close(fd)
    return {"result": result, "errno": errno.errorcode.get(code, code)}


def native_subprocess(event, context):
    """libc system(): a child process the audit hook never sees, trying 8.8.8.8:443."""
    probe = (
        "import socket,sys\n"
        "try:\n"
        " socket.create_connection(('8.8.8.8',443),timeout=2)\n"
        "except OSError as e:\n"
        " sys.exit(e.errno or 1)\n"
        "sys.exit(0)\n"
    )
    status = _c_system(f'{sys.executable} -I -c "{probe}"'.encode())
    code = os.waitstatus_to_exitcode(status) if status >= 0 else status
    return {"exit": errno.errorcode.get(code, code)}


def runs_subprocess(event, context):
    import subprocess

    subprocess.run(["true"], check=False)
    return "ran"


def loads_native_code(event, context):
    ctypes.CDLL("libc.so.6")
    return "loaded"


# ------------------------------------------------------------------ memory limit
def memory_limit_seen_at_import(event, context):
    return {"at_import": list(_LIMIT_AT_IMPORT)}


def raises_memory_limit(event, context):
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    return "raised"


class _RLimit(ctypes.Structure):
    _fields_ = [("soft", ctypes.c_ulong), ("hard", ctypes.c_ulong)]


def native_raises_memory_limit(event, context):
    """setrlimit(RLIMIT_AS, infinity) through a pointer fetched at import: the kernel decides."""
    import resource

    infinity = ctypes.c_ulong(-1).value
    result = _c_setrlimit(resource.RLIMIT_AS, ctypes.byref(_RLimit(infinity, infinity)))
    code = ctypes.get_errno() if result != 0 else 0
    return {
        "result": result,
        "errno": errno.errorcode.get(code, code),
        "now": list(resource.getrlimit(resource.RLIMIT_AS)),
    }


# ------------------------------------------------------------------ environment and files
def reports_proxies(event, context):
    import urllib.request

    names = sorted(k for k in os.environ if k.lower().endswith("_proxy"))
    return {
        "getproxies": urllib.request.getproxies(),
        "variables": {k: os.environ[k] for k in names},
    }


def credentials_from_home(event, context):
    """First call: drop the fake credentials, set a profile, look for credentials the way
    boto3 does. Later calls: what the environment is now."""
    import boto3

    _calls["n"] += 1
    seen = {
        "call": _calls["n"],
        "AWS_ACCESS_KEY_ID": os.environ.get("AWS_ACCESS_KEY_ID"),
        "AWS_PROFILE": os.environ.get("AWS_PROFILE"),
        "HOME": os.environ.get("HOME"),
        "home_listing": sorted(os.listdir(os.path.expanduser("~"))),
    }
    if _calls["n"] == 1:
        for key in list(os.environ):
            if key.startswith("AWS_") and key != "AWS_EC2_METADATA_DISABLED":
                del os.environ[key]
        credentials = boto3.Session().get_credentials()
        seen["resolved_key"] = credentials.access_key if credentials is not None else None
        os.environ["AWS_PROFILE"] = "prod"
        os.environ["HTTPS_PROXY"] = "http://10.0.0.1:3128"
    return seen


def fills_tmp_and_home(event, context):
    """Reports what /tmp (the temp dir) and HOME hold, then leaves files in both."""
    tmp = tempfile.gettempdir()
    home = os.path.expanduser("~")
    seen = {
        "tmp": tmp,
        "tmp_listing": sorted(os.listdir(tmp)),
        "home_listing": sorted(os.listdir(home)),
        "TMPDIR": os.environ.get("TMPDIR"),
        "slash_tmp": sorted(os.listdir("/tmp")) if tmp == "/tmp" else None,
    }
    for folder in (tmp, home):
        with open(os.path.join(folder, "left-behind.txt"), "w") as fh:
            fh.write("x")
        os.makedirs(os.path.join(folder, "sub", "deeper"), exist_ok=True)
        os.chmod(os.path.join(folder, "sub"), 0)  # unreadable: still emptied
    os.symlink("/etc", os.path.join(home, "etc-link"))  # removed, never followed
    return seen


import resource as _resource  # noqa: E402 - read at import, after the worker set the limit

_LIMIT_AT_IMPORT = _resource.getrlimit(_resource.RLIMIT_AS)
