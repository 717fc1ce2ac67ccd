"""Hostile handlers (tests/harness/sandbox/hostile/) that go for the user's secrets or their own
code: a worker's initial environment holds nothing of the user's (`clean_env`), the
user's home and AWS files are not there (`private_view`), and the code folder is
read-only - or, without a mount namespace, its change is said once (`code_watch`).

Safe even if the sandbox failed: every credential is a fake planted in the environment
and a fake HOME under tmp_path, proxies point at loopback's discard port, the handlers
send nothing, and the code they rewrite is a copy in tmp_path.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.events import Notice
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.harness.sandbox.clean_env import kept, worker_environment
from lambdafuzz.harness.sandbox.isolation import ISOLATION_ENV

HERE = Path(__file__).parent / "hostile"
ROOT = Path(__file__).resolve().parents[3]

FAKES = {
    "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE",
    "AWS_SECRET_ACCESS_KEY": "fakeSecretFakeSecretFakeSecret",
    "AWS_PROFILE": "fake-prod-profile",
    "HTTPS_PROXY": "http://127.0.0.1:9/",  # loopback's discard port, were it ever used
    "http_proxy": "http://127.0.0.1:9/",
    "GITHUB_TOKEN": "ghp_fakeGithubTokenFake",
    "CI_JOB_TOKEN": "fakeCiJobToken",
    "DB_PASSWORD": "fakeDbPassword",
}
HOME_KEY = "AKIAFAKEHOMEHOMEHOME"
OUTSIDE_KEY = "AKIAFAKEOUTSIDEOUTSI"

_PROBE = textwrap.dedent(
    """
    import dataclasses, json, sys
    from pathlib import Path
    from lambdafuzz.config import load_config
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
    from lambdafuzz.harness.process.worker import Worker

    if __name__ == "__main__":
        target = dataclasses.replace(load_config(Path(sys.argv[1])), handler_function=sys.argv[2])
        worker = Worker(WorkerSpec(target=target))
        try:
            result = worker.run(TestRequest({}, 1, ReplayMode.EXECUTION_INDEXED, want_log=True))
            iso = worker.info.isolation
            print(json.dumps({"status": result.status.name, "log": result.log,
                              "isolation": iso.to_json(), "describe": iso.describe()}))
        finally:
            worker.close()
    """
)


def _app_under_fake_home(tmp_path: Path, probe: str = "") -> tuple[Path, Path]:
    """(the fake HOME with `.aws/credentials`, the hostile app copied into it)."""
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = {HOME_KEY}\naws_secret_access_key = fake\n"
    )
    app = home / "project"
    shutil.copytree(HERE, app, ignore=shutil.ignore_patterns("__pycache__"))
    config = (app / "lambdafuzz.yaml").read_text()
    config = config.replace(
        "env: {TABLE_NAME: records}",
        f"env: {{TABLE_NAME: records, HOSTILE_PROBE: {json.dumps(probe)}}}",
    )
    (app / "lambdafuzz.yaml").write_text(config)
    return home, app


def _probe_campaign(tmp_path: Path, extra_env: dict[str, str]) -> dict:
    """A campaign in a fresh process (its fork server starts with this environment) whose
    worker runs `reads_secrets` once."""
    outside = tmp_path / "outside-credentials"
    outside.write_text(f"[default]\naws_access_key_id = {OUTSIDE_KEY}\n")
    home, app = _app_under_fake_home(tmp_path, f"{tmp_path / 'home/.aws/credentials'}:{outside}")
    script = tmp_path / "probe.py"
    script.write_text(_PROBE)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
        "HOME": str(home),
        "AWS_SHARED_CREDENTIALS_FILE": str(outside),
        "AWS_CONFIG_FILE": str(home / ".aws" / "config"),
        **FAKES,
        **extra_env,
    }
    done = subprocess.run(
        [sys.executable, str(script), str(app / "lambdafuzz.yaml"), "reads_secrets"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _found(out: dict) -> dict[str, str]:
    line = next(line for line in out["log"].splitlines() if line.startswith("{"))
    return json.loads(line)


@pytest.mark.parametrize("start", ["forkserver", "spawn"])
def test_the_worker_and_its_parent_start_with_nothing_of_the_users_environment(tmp_path, start):
    out = _probe_campaign(tmp_path, {"LAMBDAFUZZ_WORKER_START": start})
    assert out["status"] == "VALID", out
    found = _found(out)
    # outside its user namespace the kernel shows the worker no process's environment (the
    # campaign's included); without one, a non-root user's campaign is readable: README
    outside = ("grandparent",) if out["isolation"]["user_namespace"] else ()
    for where in ("self", "parent", "environ", *outside):
        for name, value in FAKES.items():
            assert value not in found[where], (where, name, found[where])
        assert f"HOME={tmp_path / 'home'}" not in found[where], (where, found[where])
    assert str(tmp_path / "home") not in found["self"] + found["parent"]
    names = [entry.split("=", 1)[0] for entry in found["self"].split("\0") if entry]
    assert names and all(kept(name) for name in names), names
    assert "AWS_ACCESS_KEY_ID=testing" in found["environ"]  # the sandbox's fake
    assert out["isolation"]["clean_environment"] is True
    assert "clean environment" in out["describe"]


def test_the_users_home_and_aws_files_are_not_there_and_the_handler_still_runs(tmp_path):
    out = _probe_campaign(tmp_path, {})
    if not out["isolation"]["hidden"]:
        pytest.skip(f"no mount namespace here: {out['isolation']['view_reason']}")
    assert out["status"] == "VALID", out  # imported from under the hidden HOME, and ran
    found = _found(out)
    home_credentials = str(tmp_path / "home" / ".aws" / "credentials")
    assert HOME_KEY not in found[home_credentials]
    assert OUTSIDE_KEY not in found[str(tmp_path / "outside-credentials")]
    assert str(tmp_path / "home") in out["isolation"]["hidden"]
    assert out["isolation"]["readonly_code"] == [str(tmp_path / "home" / "project")]
    assert "user's home hidden + code read-only" in out["describe"]
    assert (tmp_path / "home" / ".aws" / "credentials").read_text().count(HOME_KEY) == 1


def test_guard_only_keeps_the_environment_clean_and_says_the_home_is_not_hidden(tmp_path):
    out = _probe_campaign(tmp_path, {ISOLATION_ENV: "guard-only"})
    found = _found(out)
    for name, value in FAKES.items():
        assert value not in found["self"] and value not in found["environ"], name
    assert out["isolation"]["hidden"] == [] and out["isolation"]["readonly_code"] == []
    assert f"home and code not protected ({ISOLATION_ENV}=guard-only)" in out["describe"]


# ------------------------------------------------------------------ the code folder
def _campaign(tmp_path: Path, function: str, execs: int = 3):
    app = tmp_path / "app"
    shutil.copytree(HERE, app, ignore=shutil.ignore_patterns("__pycache__"))
    module = app / "hostile" / "handler.py"
    before = module.read_bytes()
    target = dataclasses.replace(load_config(app / "lambdafuzz.yaml"), handler_function=function)
    options = CampaignOptions(
        target=target, out_dir=tmp_path / "out", seed=1, max_execs=execs, stability_check=False
    )
    engine = Engine(options)
    events = list(engine.run())
    assert events[-1].stats.execs == execs  # a failure, not the end of the campaign
    return engine, events, app, module, before


def _line(marker: str) -> int:
    source = (HERE / "hostile" / "handler.py").read_text().splitlines()
    return next(n for n, line in enumerate(source, 1) if line.endswith(f"# HOSTILE:{marker}"))


@pytest.mark.parametrize(
    ("function", "marker"),
    [("appends_to_its_module", "appends_module"), ("plants_a_module", "plants_module")],
)
def test_a_handler_cannot_change_its_code_folder(tmp_path, function, marker):
    engine, events, app, module, before = _campaign(tmp_path, function)
    started = next(e for e in events if type(e).__name__ == "CampaignStarted")
    if "code read-only" not in started.isolation:
        pytest.skip(f"no mount namespace here: {started.isolation}")
    (signature,) = engine.failures
    assert signature.startswith(f"OSError at hostile/handler.py:{_line(marker)}"), signature
    assert "Read-only file system" in signature
    assert module.read_bytes() == before
    assert not (app / "hostile" / "planted.py").exists()
    assert not [e for e in events if isinstance(e, Notice) and e.slug == "code-changed"]


def test_without_a_mount_namespace_a_changed_code_folder_is_said_once(tmp_path, monkeypatch):
    monkeypatch.setenv(ISOLATION_ENV, "guard-only")
    _, events, app, module, before = _campaign(tmp_path, "plants_a_module", execs=2)
    (notice,) = [e for e in events if isinstance(e, Notice) and e.slug == "code-changed"]
    assert f"{app / 'hostile' / 'planted.py'} (added)" in notice.message
    assert "could not be made read-only" in notice.message


def test_what_a_started_process_keeps_of_the_campaigns_environment():
    kept_env = worker_environment(
        {**FAKES, "PATH": "/bin", "LANG": "C.UTF-8", "LC_ALL": "C", "PYTHONHASHSEED": "0",
         "LAMBDAFUZZ_ISOLATION": "guard-only", "SSH_AUTH_SOCK": "/tmp/agent",
         "PYTHON_KEYRING_PASSWORD": "x", "AWS_CONFIG_FILE": "/x", "HOME": "/home/u"}
    )  # fmt: skip
    assert kept_env == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "PYTHONHASHSEED": "0",
        "LAMBDAFUZZ_ISOLATION": "guard-only",
    }


def test_the_paths_to_hide_are_never_a_temp_dir_or_above_one(tmp_path):
    from lambdafuzz.harness.sandbox.private_view import user_secrets

    home = tmp_path / "home"
    home.mkdir()
    assert str(home) in user_secrets({"HOME": str(home)})
    for shared in ("/tmp", "/", "/dev/shm"):
        assert shared not in user_secrets({"HOME": shared})
