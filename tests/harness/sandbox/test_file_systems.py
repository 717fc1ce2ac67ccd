"""A function's file system (`FileSystemConfigs`) is at its path in the worker, writable,
and the same folder of the out dir for every test of a campaign, across worker restarts;
nothing is made on the host outside the out dir."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.emulator.unemulated import unemulated_cause
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.target import FileSystemMount
from tests.fixtures.sam import template_text

HERE = Path(__file__).parent / "file_systems"
MOUNT = "/mnt/lambdafuzz-ledger"


def spec(out: Path) -> WorkerSpec:
    target = load_config(HERE / "lambdafuzz.yaml")
    target = dataclasses.replace(target, file_systems=(FileSystemMount("ledger", MOUNT),))
    return WorkerSpec(target=target, file_systems_dir=str(out / "efs"))


def run(worker: Worker, seed: int):
    result = worker.run(TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED))
    assert result.status is Status.VALID, (result.status, result.failure)
    return result.return_value


def test_the_mount_is_at_its_path_and_keeps_what_tests_wrote(tmp_path):
    assert not os.path.exists(MOUNT)
    worker = Worker(spec(tmp_path))
    try:
        isolation = worker.info.isolation
        if MOUNT not in isolation.mounts:
            pytest.skip(f"no mount namespace here: {isolation.mounts_reason}")
        assert run(worker, 1) == "{'count': 1, 'mounted': True}"
        assert run(worker, 2) == "{'count': 2, 'mounted': True}"  # the first test's file
    finally:
        worker.close()
    restarted = Worker(spec(tmp_path))  # a new worker of the same campaign
    try:
        assert run(restarted, 3) == "{'count': 3, 'mounted': True}"
    finally:
        restarted.close()
    assert (tmp_path / "efs" / "ledger" / "count.txt").read_text() == "3"
    assert not os.path.exists(MOUNT)  # the host's /mnt is untouched


def test_without_a_namespace_nothing_is_made_outside_the_out_dir_and_the_failure_is_labelled(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("LAMBDAFUZZ_ISOLATION", "guard-only")  # as where the kernel refuses
    worker = Worker(spec(tmp_path))
    try:
        isolation = worker.info.isolation
        assert isolation.mounts == () and "no mount namespace" in isolation.mounts_reason
        result = worker.run(TestRequest({}, 1, ReplayMode.EXECUTION_INDEXED))
    finally:
        worker.close()
    # the FileNotFoundError only the missing mount explains: an invalid test, not a bug
    assert result.status is Status.INVALID and result.failure is None
    gap = result.emulator_gap
    assert gap is not None
    assert gap.key == (
        f"unemulated service: the file system at {MOUNT} (EFS) is not mounted in the worker"
    )
    assert not os.path.exists(MOUNT)  # nothing made on the host
    target = spec(tmp_path).target
    error = FailureInfo(
        "FileNotFoundError", f"[Errno 2] No such file or directory: '{MOUNT}/ledger.txt'", "", ""
    )
    label = unemulated_cause(error, target, isolation.mounts)
    assert label.startswith("unemulated service: the file system at /mnt/lambdafuzz-ledger")
    # mounted, the same failure would be the handler's own
    assert unemulated_cause(error, target, (MOUNT,)) == ""


def test_a_call_to_a_service_lambdafuzz_does_not_emulate_is_labelled():
    target = load_config(HERE / "lambdafuzz.yaml")
    unreachable = FailureInfo(
        "EndpointConnectionError",
        'Could not connect to the endpoint URL: "https://kinesis.eu-west-1.amazonaws.com/"',
        "",
        "ledger/handler.py:9",
    )
    assert unemulated_cause(unreachable, target) == (
        "unemulated service: the handler called kinesis, which lambdafuzz does not emulate"
    )
    emulated = FailureInfo(
        "EndpointConnectionError",
        'Could not connect to the endpoint URL: "https://s3.eu-west-1.amazonaws.com/"',
        "",
        "ledger/handler.py:9",
    )
    assert unemulated_cause(emulated, target) == ""
    assert (
        unemulated_cause(FailureInfo("KeyError", "'id'", "", "ledger/handler.py:3"), target) == ""
    )


def test_a_templates_file_system_configs_and_a_configs_file_systems_reach_the_target(tmp_path):
    from lambdafuzz.config.sam import load_template

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def handler(event, context):\n    return 1\n")
    (tmp_path / "template.yaml").write_text(template_text("file_systems", "file_system_configs"))
    imported = load_template(tmp_path / "template.yaml")
    assert imported.target.file_systems == (FileSystemMount("LedgerPoint", "/mnt/ledger"),)
    assert not [u for u in imported.unsupported if "FileSystemConfigs" in u]
    config = tmp_path / "lambdafuzz.yaml"
    config.write_text(
        "handler: src.app.handler\ntrigger: direct\nfile_systems: [{path: /mnt/data/}]\n"
    )
    assert load_config(config).file_systems == (FileSystemMount("data", "/mnt/data"),)


def test_a_campaign_keeps_one_folder_per_file_system_in_its_out_dir(tmp_path):
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.events import CampaignFinished

    target = spec(tmp_path).target
    out = tmp_path / "out"
    events = list(build_engine(target, out_dir=out, seed=0, max_execs=6, strategy="zest").run())
    assert isinstance(events[-1], CampaignFinished)
    count = out / "efs" / "ledger" / "count.txt"
    if not count.exists():
        pytest.skip("no mount namespace here: the handler could not write its mount")
    assert int(count.read_text()) >= 6  # every test of the campaign counted on one file
    assert not os.path.exists(MOUNT)
