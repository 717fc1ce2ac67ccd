"""The holes of the audit guard, closed: each way out is refused before it acts.

Every probe that makes a real socket call or starts a worker runs in a process inside its
own network namespace with only loopback (`isolation/netns_probe.py`), so even a guard that
failed could not send a packet.  Name-resolution probes also get a fake DNS server on
127.0.0.1:53 that counts queries: a refusal "before any name resolution" means zero
queries, and the unguarded control shows that a lookup would have been counted.  (CPython
resolves the host of `connect`/`sendto`/`bind` in C, before its audit event and without a
`socket.getaddrinfo` event; the probe records those events with a hook of its own too.)
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from isolation.netns_probe import dns_queries, record_events, run_in_netns
from isolation.worker_probe import probe_worker, request, spec, summary

from lambdafuzz.errors import SafetyError
from lambdafuzz.harness.sandbox.safety import armed

NAME = "lambdafuzz-probe.example"  # not in /etc/hosts: resolving it needs DNS


def _try(call: Any) -> str:
    try:
        call()
    except SafetyError:
        return "SafetyError"
    except Exception as exc:  # noqa: BLE001 - which error is the result
        return type(exc).__name__
    return "allowed"


# ------------------------------------------------------------------ host names, no DNS
def _name_operations() -> dict[str, Any]:
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    return {
        "connect": lambda: socket.socket().connect((NAME, 443)),
        "connect_ex": lambda: socket.socket().connect_ex((NAME, 443)),
        "sendto": lambda: udp.sendto(b"x", (NAME, 53)),
        "sendto_flags": lambda: udp.sendto(b"x", 0, (NAME, 53)),
        "sendmsg": lambda: udp.sendmsg([b"x"], [], 0, (NAME, 53)),
        "bind": lambda: socket.socket().bind((NAME, 0)),
        "create_connection": lambda: socket.create_connection((NAME, 443), timeout=1),
        "getaddrinfo": lambda: socket.getaddrinfo(NAME, 443),
        "gethostbyname": lambda: socket.gethostbyname(NAME),
        "gethostbyname_ex": lambda: socket.gethostbyname_ex(NAME),
        "gethostbyaddr_name": lambda: socket.gethostbyaddr(NAME),
        "gethostbyaddr_ip": lambda: socket.gethostbyaddr("8.8.8.8"),  # a PTR query
        "getnameinfo": lambda: socket.getnameinfo(("8.8.8.8", 443), 0),
        "getfqdn": lambda: socket.getfqdn(NAME),
        "bytearray_name": lambda: socket.socket().connect((bytearray(NAME.encode()), 443)),
        "bytes_name": lambda: socket.socket().connect((NAME.encode(), 443)),
    }


def probe_names_refused_before_resolution() -> dict[str, Any]:
    lookups = record_events("socket.getaddrinfo")
    results: dict[str, Any] = {}
    with armed() as record:
        for op, call in _name_operations().items():
            queries, events = dns_queries(), len(lookups)
            outcome = _try(call)
            results[op] = (outcome, dns_queries() - queries, len(lookups) - events)
    results["_violations"] = len(record.violations)
    # the control: the same lookups unguarded reach the fake DNS server
    controls = {}
    for op in ("connect", "gethostbyaddr_ip", "getnameinfo"):
        queries = dns_queries()
        _try(_name_operations()[op])
        controls[op] = dns_queries() - queries
    results["_controls"] = controls
    return results


def test_host_names_are_refused_before_any_dns_query() -> None:
    results = run_in_netns(probe_names_refused_before_resolution, resolver=True)
    controls = results.pop("_controls")
    assert all(count >= 1 for count in controls.values()), controls  # DNS would have seen it
    violations = results.pop("_violations")
    for op, (outcome, queries, lookup_events) in results.items():
        assert outcome == "SafetyError", (op, outcome)
        assert queries == 0, f"{op}: {queries} DNS queries before the refusal"
        # the only getaddrinfo call allowed is the refused one itself (create_connection,
        # getaddrinfo): the guard refuses at its audit event, before the C lookup
        assert lookup_events <= 1, (op, lookup_events)
    assert violations == len(results)


# ------------------------------------------------------------------ host types
class LyingStr(str):
    """A host that shows the guard "localhost" through the str methods it overrides."""

    def lower(self) -> str:  # type: ignore[override]
        return "localhost"

    def strip(self, chars: str | None = None) -> str:  # type: ignore[override]
        return "localhost"

    def __str__(self) -> str:
        return "localhost"


class LyingBytes(bytes):
    def decode(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        return "localhost"

    def __bytes__(self) -> bytes:
        return b"localhost"


class LyingTuple(tuple):  # noqa: SLOT001
    def __getitem__(self, index: Any) -> Any:  # type: ignore[override]
        return ("127.0.0.1", 443)[index]


def probe_host_types() -> dict[str, Any]:
    outcomes: dict[str, Any] = {}
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    hosts = {
        "bytearray": bytearray(b"8.8.8.8"),
        "bytes": b"8.8.8.8",
        "str_subclass": LyingStr("8.8.8.8"),
        "bytes_subclass": LyingBytes(b"8.8.8.8"),
        "ipv6_bytearray": bytearray(b"2001:4860:4860::8888"),
        "zero": "0.0.0.0",
        "decimal_ip": "134744072",  # 8.8.8.8 as inet_aton reads it: a name to the guard
    }
    with armed():
        for name, host in hosts.items():
            family = socket.AF_INET6 if "ipv6" in name else socket.AF_INET
            outcomes[f"connect {name}"] = _try(
                lambda h=host, f=family: socket.socket(f).connect((h, 443))
            )
            outcomes[f"sendto {name}"] = _try(
                lambda h=host, f=family: socket.socket(f, socket.SOCK_DGRAM).sendto(b"x", (h, 53))
            )
            outcomes[f"audit {name}"] = _try(
                lambda h=host: sys.audit("socket.connect", None, (h, 443))
            )
        outcomes["tuple_subclass"] = _try(
            lambda: socket.socket().connect(LyingTuple(("8.8.8.8", 443)))
        )
        # loopback in every form still works
        server = socket.create_server(("127.0.0.1", 0))
        port = server.getsockname()[1]
        for name, host in {
            "loopback bytearray": bytearray(b"127.0.0.1"),
            "loopback bytes": b"127.0.0.1",
            "loopback name": "localhost",
        }.items():
            client = socket.socket()
            outcomes[name] = _try(lambda c=client, h=host: c.connect((h, port)))
            client.close()
        outcomes["loopback sendto"] = _try(lambda: udp.sendto(b"x", (bytearray(b"127.0.0.1"), 9)))
        server.close()
    return outcomes


def test_every_form_of_a_host_is_checked() -> None:
    outcomes = run_in_netns(probe_host_types)
    for name, outcome in outcomes.items():
        expected = "allowed" if name.startswith("loopback") else "SafetyError"
        assert outcome == expected, (name, outcome)


# ------------------------------------------------------------------ processes, native code
def probe_processes_and_native_code() -> dict[str, Any]:
    import ctypes
    import subprocess

    libc = ctypes.CDLL(None, use_errno=True)
    getpid = libc.getpid  # fetched before the refusal: calling it is not loading
    outcomes: dict[str, Any] = {}
    with armed(native_code=True):
        outcomes["subprocess.run"] = _try(lambda: subprocess.run(["true"], check=False))
        outcomes["os.system"] = _try(lambda: os.system("true"))
        outcomes["os.popen"] = _try(lambda: os.popen("true").read())
        outcomes["os.execv"] = _try(lambda: os.execv("/bin/true", ["true"]))
        outcomes["os.posix_spawn"] = _try(lambda: os.posix_spawn("/bin/true", ["true"], {}))
        outcomes["ctypes.CDLL"] = _try(lambda: ctypes.CDLL("libc.so.6"))
        outcomes["ctypes.CDLL(None)"] = _try(lambda: ctypes.CDLL(None))
        outcomes["ctypes lookup"] = _try(lambda: libc.connect)
        outcomes["ctypes call of a pointer fetched before"] = _try(getpid)
    with armed():  # native code is refused only when asked (after the handler's import)
        outcomes["ctypes before native refusal"] = _try(lambda: ctypes.CDLL("libc.so.6"))
    outcomes["subprocess disarmed"] = _try(lambda: subprocess.run(["true"], check=True))
    return outcomes


def test_processes_and_native_code_are_refused() -> None:
    outcomes = run_in_netns(probe_processes_and_native_code)
    allowed = {
        "ctypes call of a pointer fetched before",  # invisible: the namespace covers it
        "ctypes before native refusal",
        "subprocess disarmed",
    }
    for name, outcome in outcomes.items():
        assert outcome == ("allowed" if name in allowed else "SafetyError"), (name, outcome)


def test_spawnv_child_is_refused_before_exec() -> None:
    """os.spawnv forks and the exec is refused in the child (exit status 127)."""
    assert run_in_netns(_spawnv_exit) == 127


def _spawnv_exit() -> int:
    with armed():
        pid = os.spawnv(os.P_NOWAIT, "/bin/true", ["true"])
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def probe_memory_limit() -> dict[str, Any]:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = 8 << 30 if hard == resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    outcomes: dict[str, Any] = {}
    with armed():
        infinity = resource.RLIM_INFINITY
        outcomes["setrlimit to infinity"] = _try(
            lambda: resource.setrlimit(resource.RLIMIT_AS, (infinity, infinity))
        )
        outcomes["setrlimit higher"] = _try(
            lambda: resource.setrlimit(resource.RLIMIT_AS, (cap * 2, cap * 2))
        )
        outcomes["prlimit higher"] = _try(
            lambda: resource.prlimit(0, resource.RLIMIT_AS, (cap * 2, cap * 2))
        )
        outcomes["lowering allowed"] = _try(
            lambda: resource.setrlimit(resource.RLIMIT_AS, (cap // 2, cap // 2))
        )
        outcomes["reading allowed"] = _try(lambda: resource.prlimit(0, resource.RLIMIT_AS))
        outcomes["other limits allowed"] = _try(
            lambda: resource.setrlimit(
                resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)
            )
        )
    outcomes["limit now"] = list(resource.getrlimit(resource.RLIMIT_AS))
    outcomes["cap"] = cap
    return outcomes


def test_raising_the_memory_limit_is_refused() -> None:
    outcomes = run_in_netns(probe_memory_limit)
    cap = outcomes.pop("cap")
    assert outcomes.pop("limit now") == [cap // 2, cap // 2]
    for name, outcome in outcomes.items():
        assert outcome == ("allowed" if "allowed" in name else "SafetyError"), (name, outcome)


def probe_other_families() -> dict[str, Any]:
    outcomes: dict[str, Any] = {}
    with armed():
        try:
            packet = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        except OSError as exc:
            outcomes["af_packet"] = f"cannot create: {exc}"
        else:
            outcomes["af_packet"] = _try(lambda: packet.sendto(b"\0" * 60, ("lo", 0)))
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        outcomes["af_unix"] = _try(lambda: unix.bind("\0lambdafuzz-probe"))
    return outcomes


def test_raw_packet_sockets_are_refused_unix_sockets_allowed() -> None:
    outcomes = run_in_netns(probe_other_families)
    assert outcomes["af_unix"] == "allowed"
    if not outcomes["af_packet"].startswith("cannot create"):
        assert outcomes["af_packet"] == "SafetyError"


# ------------------------------------------------------------------ in a worker
def test_a_connect_at_import_time_is_refused() -> None:
    out = run_in_netns(probe_worker, "connects_at_import", "handler", 1)
    assert out["setup_error"].startswith("HandlerImportError")
    assert "sandbox violation" in out["setup_error"]
    assert "8.8.8.8:443" in out["setup_error"]


def test_a_refusal_swallowed_at_import_time_is_reported() -> None:
    out = run_in_netns(probe_worker, "swallows_at_import", "handler", 1)
    assert out["results"][0]["value"] == "{'online_at_import': False}"
    assert len(out["import_violations"]) == 1
    assert "8.8.8.8:443" in out["import_violations"][0]


def test_a_background_thread_is_refused_after_the_handler_returned() -> None:
    out = run_in_netns(probe_worker, "escapes", "starts_thread", 2, 0.8)
    first, second = out["results"]
    assert first["status"] == "VALID"
    # the thread of the first test connected between the tests: the guard was still armed
    assert "SafetyError" in second["value"]
    assert second["status"] == "FAILURE"
    assert second["type"] == "lambdafuzz.SandboxViolation"


def test_a_name_is_refused_in_a_worker() -> None:
    out = run_in_netns(probe_worker, "escapes", "connects_to_name", 1)
    result = out["results"][0]
    assert result["type"] == "lambdafuzz.SandboxViolation"
    assert "lambdafuzz-probe.example:443" in result["message"]


@pytest.mark.parametrize(
    ("function", "shown"),
    [("runs_subprocess", "start a process"), ("loads_native_code", "through ctypes")],
)
def test_subprocesses_and_ctypes_are_refused_in_a_worker(function: str, shown: str) -> None:
    out = run_in_netns(probe_worker, "escapes", function, 1)
    result = out["results"][0]
    assert result["status"] == "FAILURE"
    assert result["type"] == "lambdafuzz.SandboxViolation"
    assert shown in result["message"]


PROXIES = {
    "HTTP_PROXY": "http://10.0.0.1:3128",
    "https_proxy": "http://10.0.0.1:3128",
    "ALL_PROXY": "socks5://10.0.0.1:1080",
    "FTP_PROXY": "http://10.0.0.1:3128",
    "NO_PROXY": "*",
}


def test_proxies_from_the_campaign_environment_never_reach_a_handler() -> None:
    out = run_in_netns(probe_worker, "escapes", "reports_proxies", 1, 0.0, PROXIES)
    value = out["results"][0]["value"]
    assert "10.0.0.1" not in value
    assert "'getproxies': {'no': '127.0.0.1,localhost,::1'}" in value
    assert "'NO_PROXY': '127.0.0.1,localhost,::1'" in value
    assert "'no_proxy': '127.0.0.1,localhost,::1'" in value


def test_proxies_do_not_divert_the_emulators_own_loopback_traffic() -> None:
    """moto's server in the worker, loaded and reset over HTTP, with proxies set."""
    out = run_in_netns(probe_server_worker_with_proxies)
    assert [r["status"] for r in out] == ["VALID", "VALID"]


def probe_server_worker_with_proxies() -> list[dict[str, Any]]:
    from lambdafuzz.harness.process.worker import Worker

    os.environ.update(PROXIES)
    worker = Worker(spec("handler", "returns_ok", backend="moto-server"))
    try:
        return [summary(worker.run(request(seed))) for seed in range(2)]
    finally:
        worker.close()


def test_credentials_never_resolve_from_the_users_home(tmp_path: Path) -> None:
    aws = tmp_path / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text(
        "[default]\naws_access_key_id = AKIAREALHOME\naws_secret_access_key = secret\n"
        "[prod]\naws_access_key_id = AKIAPROD\naws_secret_access_key = secret\n"
    )
    env = {"HOME": str(tmp_path), "AWS_PROFILE": "prod"}
    out = run_in_netns(probe_worker, "escapes", "credentials_from_home", 3, 0.0, env)
    first, second, third = (eval(r["value"]) for r in out["results"])  # noqa: S307 - our repr
    assert first["AWS_ACCESS_KEY_ID"] == "testing"
    assert first["AWS_PROFILE"] is None  # the campaign's profile never reaches a handler
    assert first["HOME"] != str(tmp_path) and first["home_listing"] == []
    assert first["resolved_key"] is None  # nothing in HOME, no fake keys: no credentials
    for later in (second, third):  # the next tests see the sandbox restored
        assert later["AWS_ACCESS_KEY_ID"] == "testing"
        assert later["AWS_PROFILE"] is None
        assert later["HOME"] == first["HOME"]
        assert later["home_listing"] == []
