"""Portable out dirs: a project copied elsewhere together with its out dir replays the copy's
config and code (repro and the pytest plugin); an out dir belongs to one target (another
one is refused) and to one running campaign at a time (campaign.lock); a resume says what
it loaded.

The project is `portable_app/`, a sales-summary lambda whose planted bug (a CSV with a
header and no orders divides zero by zero) a 100-execution campaign finds.  That campaign
runs once, then its project is moved away: every copy replays through the config path
campaign.json records relative to the out dir, never through the absolute one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config.campaign import campaign_target
from lambdafuzz.fuzzer.options import TargetIdentity
from lambdafuzz.fuzzer.out_dir import LOCK_FILE, OutDir, OutDirError

pytest_plugins = ["pytester"]

APP = Path(__file__).parent / "portable_app"
EXECS = 100
SEED = 0  # finds the planted bug within EXECS
BUG = "orders = rows[1:]\n"
FIX = 'orders = rows[1:]\n    if not orders:\n        return {"statusCode": 200, "body": "no orders"}\n'


def plugin_args() -> list[str]:
    """`-p lambdafuzz.pytest_plugin` unless the installed entry point loads it already."""
    installed = any(ep.name == "lambdafuzz" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "lambdafuzz.pytest_plugin"]


def fuzz(*args: str):
    return CliRunner().invoke(cli, ["fuzz", *args])


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory) -> Path:
    """The project with `out/` after a campaign, moved away from where it was fuzzed."""
    base = tmp_path_factory.mktemp("portable")
    project = base / "build" / "project"
    shutil.copytree(APP, project)
    result = fuzz(
        str(project), "--execs", str(EXECS), "--seed", str(SEED), "--out", str(project / "out")
    )
    assert result.exit_code == 1, result.output  # the planted bug was found
    os.rename(base / "build", base / "stored")  # the absolute path it was fuzzed at is gone
    return base / "stored" / "project"


def copy_project(fuzzed: Path, where: Path) -> Path:
    shutil.copytree(fuzzed, where)
    return where


def failure_names(out: Path) -> list[str]:
    return sorted(p.stem for p in (out / "failures").glob("*.json") if ".min." not in p.name)


# =========================================================================== portable replay
@pytest.mark.slow
def test_campaign_json_records_the_config_relative_to_the_out_dir(fuzzed):
    meta = json.loads((fuzzed / "out" / "campaign.json").read_text())
    assert meta["config"] == "../lambdafuzz.yaml"
    assert meta["identity"]["handler"] == "sales.summary.lambda_handler"
    assert meta["identity"]["config"] == "../lambdafuzz.yaml"
    assert meta["identity"]["hash"].startswith("sha256:")
    assert not Path(meta["config_absolute"]).exists()  # moved away: only the relative path works
    names = failure_names(fuzzed / "out")
    assert len(names) == 1 and names[0].startswith("InvalidOperation-at-sales-summary-py-"), names


@pytest.mark.slow
def test_a_copied_project_fails_its_saved_failure_tests_before_the_fix(pytester, fuzzed):
    project = copy_project(fuzzed, pytester.path / "project")
    names = failure_names(project / "out")
    result = pytester.runpytest(*plugin_args(), "--lambdafuzz-corpus", "project/out", "-rA")
    result.assert_outcomes(failed=len(names), passed=1)  # + the coverage test
    result.stdout.fnmatch_lines([f"FAILED project/out::failure[[]{name}]*" for name in names])
    text = result.stdout.str()
    assert "saved failure still fails (the same failure)" in text
    assert "decimal.DivisionUndefined" in text and "Traceback (most recent call last)" in text
    assert f'File "{(project / "sales" / "summary.py").resolve()}", line ' in text  # the copy
    assert "average = total / len(orders)" in text


@pytest.mark.slow
def test_a_copied_project_with_the_bug_fixed_passes_its_saved_failure_tests(pytester, fuzzed):
    project = copy_project(fuzzed, pytester.path / "project")
    handler = project / "sales" / "summary.py"
    assert BUG in handler.read_text()
    handler.write_text(handler.read_text().replace(BUG, FIX))
    names = failure_names(project / "out")
    assert names
    pytester.makeini("[pytest]\nlambdafuzz_corpus = project/out\n")
    result = pytester.runpytest(*plugin_args(), "-rA")
    result.stdout.fnmatch_lines([f"PASSED project/out::failure[[]{name}]" for name in names])
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0, result.stdout.str()
    # the stored original still has the bug: only the copy's code makes these pass
    assert BUG in (fuzzed / "sales" / "summary.py").read_text()


@pytest.mark.slow
def test_repro_finds_the_copy_s_config(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "elsewhere" / "project")
    campaign = OutDir(project / "out").read()
    assert campaign_target(campaign).config_path == (project / "lambdafuzz.yaml").resolve()
    # an older campaign.json: the absolute path is the only one, and it is still read
    meta = json.loads((project / "out" / "campaign.json").read_text())
    for key in ("identity", "config_absolute"):
        del meta[key]
    meta["config"] = str(project / "lambdafuzz.yaml")
    (project / "out" / "campaign.json").write_text(json.dumps(meta))
    campaign = OutDir(project / "out").read()
    assert campaign_target(campaign).config_path == (project / "lambdafuzz.yaml").resolve()


# =========================================================================== one target per out dir
@pytest.mark.slow
def test_reusing_the_out_dir_of_another_handler_exits_2_and_changes_nothing(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "project")
    other = tmp_path / "refunds"
    shutil.copytree(APP, other)
    for path in (other / "lambdafuzz.yaml", other / "sales" / "summary.py"):
        path.write_text(path.read_text().replace("lambda_handler", "refund_handler"))
    out = project / "out"
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = fuzz(str(other), "--execs", "5", "--out", str(out), "--quiet")
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert f"Error: {out} holds the campaign of another target" in message
    assert "sales.summary.lambda_handler from " in message  # the campaign's target
    assert "this run fuzzes sales.summary.refund_handler from " in message  # and this one
    assert f"use another --out (e.g. --out {out}-refund_handler)" in message
    assert "Traceback" not in result.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


@pytest.mark.slow
def test_same_handler_from_another_config_is_another_target(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "project")
    other = tmp_path / "other-app"
    shutil.copytree(APP, other)
    config = other / "lambdafuzz.yaml"
    config.write_text(config.read_text().replace("timeout_s: 5", "timeout_s: 7"))
    result = fuzz(str(other), "--execs", "5", "--out", str(project / "out"), "--quiet")
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert "holds the campaign of another target: sales.summary.lambda_handler from" in message
    assert str(config) in message and f"--out {project / 'out'}-other-app" in message


def test_another_template_function_is_refused_before_reading_the_config(tmp_path):
    out = OutDir(tmp_path / "out" / "IngestFunction")
    out.path.mkdir(parents=True)
    ingest = TargetIdentity("inventory.ingest.handler", "IngestFunction", "../../t.yaml", "")
    (out.path / "campaign.json").write_text(
        json.dumps(
            {"config": ingest.config, "handler": ingest.handler, "identity": ingest.to_json()}
        )
    )
    worker = TargetIdentity("inventory.worker.handler", "WorkerFunction", "../../t.yaml", "")
    with pytest.raises(OutDirError) as raised:
        out.check_target(worker)
    message = str(raised.value)
    assert "inventory.ingest.handler (function IngestFunction) from " in message
    assert "inventory.worker.handler (function WorkerFunction) from " in message
    assert f"--out {tmp_path / 'out' / 'WorkerFunction'}" in message
    assert out.check_target(ingest) == []  # the same target resumes silently


@pytest.mark.slow
def test_an_edited_config_of_the_same_handler_resumes_with_a_warning(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "project")
    config = project / "lambdafuzz.yaml"
    config.write_text(config.read_text().replace("timeout_s: 5", "timeout_s: 6"))
    result = fuzz(str(project), "--execs", "5", "--out", str(project / "out"), "--quiet")
    assert result.exit_code == 1, result.output  # resumed: the known failure is still there
    assert "lambdafuzz: warning [config-changed]: " in result.stderr
    assert "changed since the campaign in" in result.stderr
    identity = json.loads((project / "out" / "campaign.json").read_text())["identity"]
    assert (
        identity["hash"]
        == TargetIdentity.of(
            campaign_target(OutDir(project / "out").read()), None, project / "out"
        ).hash
    )  # the new content is the campaign's from now on


# =========================================================================== one campaign at a time
@pytest.mark.slow
def test_a_second_campaign_in_a_locked_out_dir_exits_2(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "project")
    out = project / "out"
    cmd = [sys.executable, "-m", "lambdafuzz", "fuzz", str(project), "--time", "60"]
    cmd += ["--out", str(out), "--quiet"]
    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _lock_pid(out):
            time.sleep(0.1)
        assert _lock_pid(out) == first.pid
        result = fuzz(str(project), "--execs", "5", "--out", str(out), "--quiet")
        assert result.exit_code == 2, result.output
        message = " ".join(result.output.split())
        assert f"Error: {out} is in use by another campaign (pid {first.pid}, started " in message
        assert "wait for it to finish, stop it, or use another --out" in message
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=60)
    assert first.returncode == 130
    assert not (out / LOCK_FILE).exists()  # released when the campaign ended


@pytest.mark.slow
def test_the_lock_of_a_killed_campaign_is_taken_over(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "project")
    out = project / "out"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (out / LOCK_FILE).write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename}))
    result = fuzz(str(project), "--execs", "5", "--out", str(out), "--quiet")
    assert result.exit_code == 1, result.output
    assert "lambdafuzz: warning [lock-taken-over]: took over campaign.lock" in result.stderr
    assert f"(pid {dead.pid}, no longer running)" in result.stderr
    assert not (out / LOCK_FILE).exists()


def test_one_process_cannot_lock_an_out_dir_twice(tmp_path):
    out = OutDir(tmp_path / "out")
    lock = out.lock()
    try:
        with pytest.raises(OutDirError, match=rf"pid {os.getpid()} \(this process\)"):
            out.lock()
    finally:
        lock.release()
    again = out.lock()  # released: free again, and nothing to take over
    assert again.note is None
    again.release()
    assert not (tmp_path / "out" / LOCK_FILE).exists()


def _lock_pid(out: Path) -> int | None:
    try:
        return json.loads((out / LOCK_FILE).read_text()).get("pid")
    except (OSError, ValueError):
        return None


# =========================================================================== what a resume says
@pytest.mark.slow
def test_a_resume_says_what_it_loaded(tmp_path, fuzzed):
    project = copy_project(fuzzed, tmp_path / "project")
    out = project / "out"
    corpus = len(list((out / "corpus").glob("*.json")))
    failures = len(failure_names(out))
    (out / "flaky").mkdir()
    name = failure_names(out)[0]
    shutil.copyfile(out / "failures" / f"{name}.json", out / "flaky" / f"{name}.json")
    handled = len(list((out / "handled").glob("*.json")))
    expected = (
        f"resuming from {out}/: {corpus} corpus inputs (re-run first), "
        f"{failures} known bug{'s' if failures != 1 else ''}, 1 flaky"
        + (f", {handled} handled exception{'s' if handled != 1 else ''}" if handled else "")
    )
    quiet = fuzz(str(project), "--execs", "5", "--out", str(out), "--quiet")
    assert quiet.exit_code == 1, quiet.output
    assert "resuming" not in quiet.output  # --quiet: errors and the summary only
    loud = fuzz(str(project), "--execs", "5", "--out", str(out))
    assert f"\n  {expected}\n" in loud.stdout  # under the start line
    assert "flaky (did not reproduce on a re-run, in flaky/)" in loud.stdout  # kept counting


@pytest.mark.slow
def test_a_new_out_dir_says_nothing_about_resuming(tmp_path):
    project = shutil.copytree(APP, tmp_path / "project")
    result = fuzz(str(project), "--execs", "3", "--out", str(tmp_path / "out"), "--quiet")
    assert result.exit_code in (0, 1), result.output
    assert "resuming" not in result.output
