"""A handler that looks up libc's `connect` through ctypes at import (when native code may
still load), swallowing any refusal, and calls it in a test: to 127.0.0.1:`HOSTILE_PORT`,
a listener of the test (tests/harness/sandbox/test_hostile.py, in a loopback-only namespace)."""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import struct

_libc = ctypes.CDLL(None, use_errno=True)
try:
    _connect = _libc.connect  # HOSTILE:ctypes_lookup
    _refusal = ""
except Exception as exc:  # noqa: BLE001 - a hostile library swallows the refusal
    _connect = None
    _refusal = f"{type(exc).__name__}: {exc}"


def ctypes_connects(event, context):
    if _connect is None:
        return {"connected": False, "refusal": _refusal}
    sock = socket.socket()
    port = int(os.environ["HOSTILE_PORT"])
    address = struct.pack("=H", socket.AF_INET) + struct.pack("!H4s8x", port, b"\x7f\0\0\1")
    result = _connect(sock.fileno(), ctypes.c_char_p(address), len(address))
    code = ctypes.get_errno() if result != 0 else 0
    sock.close()
    return {"connected": result == 0, "errno": errno.errorcode.get(code, code)}
