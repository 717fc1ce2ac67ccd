"""Workers on the in-process emulator run in a network namespace with only loopback.

What the audit guard cannot see — ctypes calling libc's `connect` through a pointer fetched
at import, a child process started by libc's `system()` — is impossible there: ENETUNREACH.
The probes run inside an outer namespace of their own in which 8.8.8.8:443 is a *local*
listener (`netns_probe.fake_internet`): a connect that got through would succeed there, so
ENETUNREACH proves it was the worker's own namespace that stopped it (and a worker with the
namespaces switched off shows the connect getting through, which is why they exist).
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from isolation.netns_probe import FAKE_INTERNET, fake_internet, run_in_netns
from isolation.worker_probe import probe_worker, request, spec, summary

from lambdafuzz.harness.sandbox.isolation import (
    ISOLATION_ENV,
    Isolation,
    IsolationState,
    PrivateTmp,
    empty_dir,
    network_plan,
)

ROOT = Path(__file__).resolve().parents[3]
GRADEBOOK = ROOT / "benchmarks" / "lambdas" / "gradebook"
GUARD_ONLY = {ISOLATION_ENV: "guard-only"}


def _require_namespace(out: dict[str, Any]) -> None:
    isolation = out["isolation"]
    if isolation["network"] != Isolation.NETWORK_NAMESPACE:
        pytest.skip(
            f"this kernel gives workers no network namespace: {isolation['network_reason']}"
        )


# ------------------------------------------------------------------ deciding
@pytest.mark.parametrize(
    ("backend", "endpoint", "namespace"),
    [
        ("moto", None, True),
        ("moto-server", None, True),  # the worker's own server, on the namespace's loopback
        ("moto-server", "http://127.0.0.1:5000", False),
        ("localstack", "http://127.0.0.1:4566", False),
        ("localstack", None, False),
    ],
)
def test_only_backends_inside_the_worker_get_a_namespace(
    backend: str, endpoint: str | None, namespace: bool
) -> None:
    use, reason = network_plan(backend, endpoint)
    assert use is namespace
    if not namespace:
        assert f"backend {backend} talks to an emulator outside the worker" in reason


#: A checkout (or its venv) under /tmp or /dev/shm: a private tmpfs there would hide the
#: code, so isolation deliberately falls back to a per-worker temp dir (and says why).
CODE_UNDER_TMP = any(
    str(path).startswith(("/tmp/", "/dev/shm/"))
    for path in (Path(__file__).resolve(), Path(sys.executable).resolve(), Path(sys.prefix))
)


def test_a_worker_reports_its_isolation() -> None:
    out = probe_worker("handler", "returns_ok", 1)
    _require_namespace(out)
    isolation = out["isolation"]
    assert isolation["network_reason"] == "only loopback exists"
    assert "CAP_SYS_ADMIN" in isolation["capabilities_dropped"] or os.geteuid() != 0
    assert out["results"][0]["status"] == "VALID"
    if CODE_UNDER_TMP:
        assert isolation["tmp"] == PrivateTmp.TEMP_DIR
        assert "would hide" in isolation["tmp_reason"], isolation["tmp_reason"]
        return
    assert isolation["tmp"] == PrivateTmp.TMPFS, isolation["tmp_reason"]
    assert isolation["tmp_dir"] == "/tmp"
    assert isolation["host_dir"] is None  # nothing of the worker's on the host
    assert out["describe"].startswith(
        "network namespace (loopback only) + audit guard; private /tmp (tmpfs); "
        "clean environment; user's home hidden + code read-only"
    ), out["describe"]


# ------------------------------------------------------------------ what only the namespace stops
def probe_behind_fake_internet(function: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    server = fake_internet()
    try:
        control = socket.create_connection(FAKE_INTERNET, timeout=2)  # it answers here
        control.close()
        return probe_worker("escapes", function, 1, env=env)
    finally:
        server.close()


def test_a_ctypes_connect_is_impossible_in_the_namespace() -> None:
    out = run_in_netns(probe_behind_fake_internet, "native_connect")
    _require_namespace(out)
    result = out["results"][0]
    assert result["status"] == "VALID"  # the audit hook saw nothing ...
    assert "'errno': 'ENETUNREACH'" in result["value"]  # ... the namespace stopped it


def test_without_the_namespace_a_ctypes_connect_gets_through() -> None:
    """Why the namespace exists: the same handler with namespaces off reaches the (fake)
    internet; the audit guard cannot see a native call."""
    out = run_in_netns(probe_behind_fake_internet, "native_connect", GUARD_ONLY)
    assert out["isolation"]["network"] == Isolation.AUDIT_GUARD_ONLY
    assert "'result': 0" in out["results"][0]["value"]


def test_a_child_process_the_guard_never_sees_is_in_the_namespace_too() -> None:
    out = run_in_netns(probe_behind_fake_internet, "native_subprocess")
    _require_namespace(out)
    assert out["results"][0]["value"] == "{'exit': 'ENETUNREACH'}"


# ------------------------------------------------------------------ the memory limit
def test_the_memory_limit_is_in_force_at_import_and_cannot_be_raised() -> None:
    seen = probe_worker("escapes", "memory_limit_seen_at_import", 1, memory_limit_mb=512)
    soft, hard = json.loads(seen["results"][0]["value"].replace("'", '"'))["at_import"]
    assert soft == hard and 0 < hard < 1 << 62, (soft, hard)

    python = probe_worker("escapes", "raises_memory_limit", 1, memory_limit_mb=512)
    result = python["results"][0]
    assert result["type"] == "lambdafuzz.SandboxViolation"
    assert "raise its memory limit" in result["message"]

    native = probe_worker("escapes", "native_raises_memory_limit", 1, memory_limit_mb=512)
    value = native["results"][0]["value"]
    assert "'errno': 'EPERM'" in value  # the kernel refuses: no CAP_SYS_RESOURCE left
    now = json.loads(value.replace("'", '"'))["now"]
    assert now[0] == now[1] and 0 < now[1] < 1 << 62, now  # still the worker's cap


# ------------------------------------------------------------------ private /tmp and HOME
def _check_private_dirs(out: dict[str, Any]) -> list[dict[str, Any]]:
    seen = [eval(r["value"]) for r in out["results"]]  # noqa: S307 - our own repr
    for test in seen:  # every test starts with both empty, whatever the last one left
        assert test["tmp_listing"] == [], test
        assert test["home_listing"] == [], test
        assert test["TMPDIR"] == test["tmp"]
    assert not out["host_dir_left"]
    return seen


def test_every_test_gets_an_empty_private_tmp_and_home() -> None:
    before = set(os.listdir("/tmp"))
    out = probe_worker("escapes", "fills_tmp_and_home", 3)
    seen = _check_private_dirs(out)
    if out["isolation"]["tmp"] == PrivateTmp.TMPFS:
        assert seen[0]["tmp"] == "/tmp"
        assert all(test["slash_tmp"] == [] for test in seen)  # /tmp itself, not a subdir
    assert "left-behind.txt" not in set(os.listdir("/tmp")) - before  # never the host's /tmp


def test_without_a_mount_namespace_a_per_worker_dir_is_emptied_and_removed() -> None:
    out = probe_worker("escapes", "fills_tmp_and_home", 3, env=GUARD_ONLY)
    assert out["isolation"]["tmp"] == PrivateTmp.TEMP_DIR
    reason = out["isolation"]["tmp_reason"]
    assert reason == f"{ISOLATION_ENV}=guard-only" or (CODE_UNDER_TMP and "would hide" in reason)
    seen = _check_private_dirs(out)
    assert seen[0]["tmp"].startswith(out["isolation"]["host_dir"])


def test_empty_dir_removes_links_never_their_targets(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep")
    private = tmp_path / "private"
    private.mkdir()
    (private / "link").symlink_to(outside)
    (private / "locked" / "deeper").mkdir(parents=True)
    (private / "locked" / "deeper" / "f").write_text("x")
    (private / "locked" / "deeper").chmod(0)
    (private / "locked").chmod(0)
    empty_dir(str(private))
    assert os.listdir(private) == []
    assert (outside / "precious").read_text() == "keep"
    replaced = tmp_path / "replaced"  # the directory itself swapped for a link
    replaced.symlink_to(outside)
    empty_dir(str(replaced))
    assert replaced.is_dir() and not replaced.is_symlink()
    assert (outside / "precious").read_text() == "keep"


# ------------------------------------------------------------------ server backends
def probe_external_moto_server() -> dict[str, Any]:
    from moto.server import ThreadedMotoServer

    from lambdafuzz.harness.process.worker import Worker

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        worker = Worker(
            spec("handler", "returns_ok", backend="moto-server", endpoint=f"http://{host}:{port}")
        )
        try:
            results = [summary(worker.run(request(seed))) for seed in range(2)]
            isolation = worker.info.isolation
        finally:
            worker.close()
    finally:
        server.stop()
    assert isinstance(isolation, IsolationState)
    return {"results": results, "isolation": isolation.to_json(), "describe": isolation.describe()}


def test_a_server_backend_keeps_the_audit_guard_only_and_its_loopback_works() -> None:
    out = run_in_netns(probe_external_moto_server)
    assert out["isolation"]["network"] == Isolation.AUDIT_GUARD_ONLY
    assert "talks to an emulator outside the worker at http://127.0.0.1:" in out["describe"]
    assert [r["status"] for r in out["results"]] == ["VALID", "VALID"]


def test_the_workers_own_moto_server_runs_in_the_namespace() -> None:
    out = run_in_netns(probe_worker, "handler", "returns_ok", 2, 0.0, None, backend="moto-server")
    _require_namespace(out)
    assert [r["status"] for r in out["results"]] == ["VALID", "VALID"]


# ------------------------------------------------------------------ a whole campaign
@pytest.mark.slow
def test_a_campaign_finds_gradebooks_failures_with_isolation_on(tmp_path: Path) -> None:
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.events import CampaignFinished, CampaignStarted
    from lambdafuzz.report.status import summary as summary_text

    engine = build_engine(
        load_config(GRADEBOOK), out_dir=tmp_path / "out", strategy="zest", seed=1, max_execs=150
    )
    events = list(engine.run())
    started = next(e for e in events if isinstance(e, CampaignStarted))
    finished = next(e for e in events if isinstance(e, CampaignFinished))
    campaign = json.loads((tmp_path / "out" / "campaign.json").read_text())
    if campaign["isolation"]["network"] != Isolation.NETWORK_NAMESPACE:
        pytest.skip(f"no network namespace here: {campaign['isolation']['network_reason']}")
    assert started.isolation == finished.isolation != ""
    assert f"isolation       {finished.isolation}" in summary_text(finished)
    failures = {e.name for e in (tmp_path / "out" / "failures").glob("*.json")}
    kinds = " ".join(sorted(failures))
    assert finished.stats.unique_failures >= 2, kinds
    assert "ValueError" in kinds or "valueerror" in kinds.lower(), kinds
