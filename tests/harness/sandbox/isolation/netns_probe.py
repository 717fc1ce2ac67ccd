"""Run a probe where it cannot emit a packet, whatever the code under test does.

`run_in_netns(fn, *args)` runs `fn` in a fresh (spawned) process that first enters a new
network namespace in which only loopback exists, and checks that before `fn` runs: a probe
of the guard that fails (lets a connect through) gets ENETUNREACH, never the network.  The
test is skipped, with the kernel's refusal as the reason, where namespaces are not allowed.

With `resolver=True` the process also gets a private mount namespace whose
`/etc/resolv.conf` names 127.0.0.1, where `FakeResolver` answers every query NXDOMAIN and
counts it: `dns_queries()` is then the number of name lookups that reached DNS, so a probe
can assert that a refusal came *before* any resolution (and, as a control, that an
unguarded lookup is seen).
"""

from __future__ import annotations

import ctypes
import fcntl
import multiprocessing
import os
import socket
import struct
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from typing import Any

import pytest

PROBE_TIMEOUT_S = 120.0
_MS_REC, _MS_PRIVATE, _MS_BIND = 0x4000, 0x40000, 0x1000

_resolver: FakeResolver | None = None
_events: list[tuple[str, tuple[Any, ...]]] = []


def run_in_netns(fn: Callable[..., Any], *args: Any, resolver: bool = False, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` in a spawned process inside a loopback-only network namespace;
    its (picklable) return value.  Skips the test when the kernel refuses the namespace."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args, kwargs, resolver))  # may start workers
    proc.start()
    child.close()
    try:
        if not parent.poll(PROBE_TIMEOUT_S):
            raise AssertionError(f"probe {fn.__name__} did not finish in {PROBE_TIMEOUT_S:g} s")
        try:
            kind, value = parent.recv()
        except EOFError:
            proc.join(5)
            raise AssertionError(f"probe {fn.__name__} died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.join(5)
        if proc.is_alive():
            proc.kill()
        parent.close()
    if kind == "skip":
        pytest.skip(value)
    if kind == "error":
        pytest.fail(value, pytrace=False)
    return value


def _child(
    conn: Any,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    resolver: bool,
) -> None:
    try:
        refusal = enter_loopback_only_namespace(resolver=resolver)
        if refusal:
            conn.send(("skip", refusal))
            return
        interfaces = network_interfaces()
        if interfaces != ["lo"]:  # never run a probe where a packet could leave
            conn.send(("error", f"not isolated: interfaces {interfaces}"))
            return
        conn.send(("ok", fn(*args, **kwargs)))
    except BaseException:  # noqa: BLE001 - everything goes back to the test
        conn.send(("error", traceback.format_exc()))


def enter_loopback_only_namespace(*, resolver: bool = False) -> str:
    """unshare a network (and, with `resolver`, mount) namespace and bring `lo` up; the
    reason as text when the kernel refuses, "" when done."""
    flags = os.CLONE_NEWNET | (os.CLONE_NEWNS if resolver else 0)
    try:
        if os.geteuid() == 0:
            os.unshare(flags)
        else:
            uid, gid = os.geteuid(), os.getegid()
            os.unshare(os.CLONE_NEWUSER | flags)
            for name, text in (
                ("setgroups", "deny"),
                ("uid_map", f"{uid} {uid} 1\n"),
                ("gid_map", f"{gid} {gid} 1\n"),
            ):
                with open(f"/proc/self/{name}", "w") as fh:
                    fh.write(text)
    except OSError as exc:
        return f"the kernel refuses a network namespace here ({exc}); the probe cannot run safely"
    _loopback_up()
    if resolver:
        _start_fake_resolver()
    return ""


def network_interfaces() -> list[str]:
    with open("/proc/net/dev") as fh:
        return sorted(line.split(":", 1)[0].strip() for line in fh.readlines()[2:])


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0))[:18])[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))


# ------------------------------------------------------------------------ DNS
class FakeResolver:
    """A DNS server on 127.0.0.1:53 (UDP) that answers NXDOMAIN and counts queries."""

    def __init__(self) -> None:
        self.queries: list[bytes] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 53))
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                query, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            self.queries.append(query)
            end = 12
            while end < len(query) and query[end]:
                end += query[end] + 1
            question = query[12 : end + 5]
            # id, flags QR|RD|RA + NXDOMAIN, one question, no answers
            reply = query[:2] + b"\x81\x83\x00\x01\x00\x00\x00\x00\x00\x00" + question
            self.sock.sendto(reply, peer)


def _start_fake_resolver() -> None:
    global _resolver
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    fd, conf = tempfile.mkstemp(prefix="resolv-", suffix=".conf")
    os.write(fd, b"nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    os.close(fd)
    try:
        if libc.mount(conf.encode(), b"/etc/resolv.conf", None, _MS_BIND, None) != 0:
            raise OSError(ctypes.get_errno(), "bind-mount /etc/resolv.conf")
    finally:
        os.unlink(conf)  # the bind mount keeps it alive in this namespace only
    _resolver = FakeResolver()


def dns_queries() -> int:
    """Queries the fake resolver has received so far."""
    assert _resolver is not None, "run_in_netns(..., resolver=True)"
    return len(_resolver.queries)


# ------------------------------------------------------------------------ audit events
def record_events(*names: str) -> list[tuple[str, tuple[Any, ...]]]:
    """Record every audit event in `names` from now on (a hook of the probe's own)."""

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in names:
            _events.append((event, args))

    sys.addaudithook(hook)
    return _events


# ------------------------------------------------------------------ a fake internet
FAKE_INTERNET = ("8.8.8.8", 443)


def fake_internet() -> socket.socket:
    """Make 8.8.8.8 an address of this namespace's loopback and listen on 8.8.8.8:443: a
    connect that escaped every check succeeds here (and still never leaves the machine),
    so a probe can tell "refused" or "unreachable" apart from "got through"."""
    host, port = FAKE_INTERNET
    siocsifaddr, siocsifnetmask = 0x8916, 0x891C
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for request, address in ((siocsifaddr, host), (siocsifnetmask, "255.255.255.255")):
            ifreq = struct.pack(
                "16sH2s4s8x", b"lo:8", socket.AF_INET, b"\0\0", socket.inet_aton(address)
            )
            fcntl.ioctl(s, request, ifreq)
    server = socket.create_server((host, port))

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    return server
