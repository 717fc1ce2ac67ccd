"""Ctrl-C (issue 39, item 4): `lambdafuzz fuzz` (a campaign and a resume), `repro` and
`minimize`, run as a user runs them, stop within seconds of a SIGINT to their process
group at any moment - while the config loads, while the workers start or import a slow
handler, while a resume re-runs corpus/, mid-campaign, while a test is stuck in a loop
(one that catches Ctrl-C itself included) - with exit status 130, one line on stderr and
no traceback, no process of theirs left, and an out dir that is still read whole.

Each command runs with fake credentials only (in its environment and in a fake HOME's
`.aws/credentials`), its TMPDIR and out dir in the test's tmp_path; no handler here
touches the network."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.corpus import SavedInput, load_input, save_input
from lambdafuzz.fuzzer.out_dir import LOCK_FILE, OutDir
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode
from tests.fixtures.process_table import alive, campaign_processes, command, stat

HOSTILE = Path(__file__).parent / "hostile"
MODE = ReplayMode.EXECUTION_INDEXED
#: Seconds from the SIGINT to the exit: ~0.1-0.7 s measured on 2 busy cores; the bound
#: leaves room for a loaded machine and still fails a stop that waits for a budget (30 s)
#: or a test's timeout (60 s).
EXIT_WITHIN_S = 3.0
#: Seconds after the exit by which every process the command started is gone.
GONE_WITHIN_S = 3.0

pytestmark = pytest.mark.timeout(120)


# =========================================================================== helpers
def _config(tmp_path: Path, handler: str, *, timeout_s: float = 1) -> Path:
    """The hostile fixture's config with another handler and timeout, in tmp_path."""
    text = (HOSTILE / "lambdafuzz.yaml").read_text()
    text = text.replace("handler: hostile.handler.returns_ok", f"handler: {handler}")
    text = text.replace("root: .", f"root: {HOSTILE}").replace(
        "timeout_s: 1", f"timeout_s: {timeout_s}"
    )
    path = tmp_path / f"{handler.rsplit('.', 1)[-1]}.yaml"
    path.write_text(text)
    return path


def _environment(tmp_path: Path) -> dict[str, str]:
    """The user's environment with fake credentials only, HOME and TMPDIR in tmp_path."""
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True, exist_ok=True)
    (home / ".aws" / "credentials").write_text(
        "[default]\naws_access_key_id = AKIAFAKEFAKEFAKEFAKE\naws_secret_access_key = fake\n"
    )
    tmp = tmp_path / "t"
    tmp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LAMBDAFUZZ_"))}
    env.update(
        HOME=str(home),
        TMPDIR=str(tmp),
        AWS_ACCESS_KEY_ID="AKIAFAKEFAKEFAKEFAKE",
        AWS_SECRET_ACCESS_KEY="fakefakefakefakefakefakefakefakefakefake",
        PYTHONUNBUFFERED="1",
    )
    return env


class Command:
    """A `lambdafuzz` command in its own session (as a terminal's job), its output in files."""

    def __init__(self, tmp_path: Path, *args: str, name: str = "run") -> None:
        self.tmp_path = tmp_path
        self.out = tmp_path / f"{name}.out"
        self.err = tmp_path / f"{name}.err"
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lambdafuzz", *args],
            env=_environment(tmp_path),
            cwd=tmp_path,
            start_new_session=True,
            stdout=self.out.open("w"),
            stderr=self.err.open("w"),
        )

    def stdout(self) -> str:
        return self.out.read_text()

    def wait_for(self, text: str, within_s: float = 60) -> None:
        deadline = time.monotonic() + within_s
        while text not in self.stdout():
            assert self.proc.poll() is None, (self.proc.returncode, self.err.read_text())
            assert time.monotonic() < deadline, f"no {text!r} within {within_s} s"
            time.sleep(0.05)

    def wait_for_worker(self, within_s: float = 60) -> None:
        """Until a worker runs: a child of the campaign's fork server, or one it spawned (a
        TMPDIR too long for the server's socket, as tmp_path may be)."""
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            processes = {p: stat(p) for p in campaign_processes(self.proc.pid)}
            servers = {
                p
                for p, info in processes.items()
                if info and info[0] == self.proc.pid and "forkserver" in command(p)
            }
            if any(
                info
                and (
                    info[0] in servers
                    or (info[0] == self.proc.pid and "multiprocessing.spawn" in command(p))
                )
                for p, info in processes.items()
            ):
                return
            assert self.proc.poll() is None, (self.proc.returncode, self.err.read_text())
            time.sleep(0.05)
        raise AssertionError(f"no worker within {within_s} s")

    def interrupt(self, *, at_s: float | None = None, presses: int = 1) -> float:
        """Ctrl-C (SIGINT to the process group, as a terminal sends it), `at_s` after the
        start or now; its exit checked: 130 within `EXIT_WITHIN_S`, one line, no traceback,
        nothing of it left running.  The seconds it took to exit."""
        if at_s is not None:
            time.sleep(max(0.0, self.started + at_s - time.monotonic()))
        assert self.proc.poll() is None, (self.proc.returncode, self.err.read_text())
        ours = campaign_processes(self.proc.pid)
        sent = time.monotonic()
        for press in range(presses):
            if press:
                time.sleep(0.1)
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            code = self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
        took = time.monotonic() - sent
        err = self.err.read_text()
        assert code == 130, (code, err[-3000:])
        assert took <= EXIT_WITHIN_S, f"exit {took:.2f} s after Ctrl-C"
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
        assert "Aborted!" not in err
        assert err.strip().splitlines()[-1] == "lambdafuzz: interrupted", err[-3000:]
        self._nothing_left(ours)
        return took

    def _nothing_left(self, before: set[int]) -> None:
        """No process of the command left: none seen before the signal, none of its session
        (workers, fork server, resource tracker), none naming its tmp_path (janitors)."""
        deadline = time.monotonic() + GONE_WITHIN_S
        while True:
            left = alive(before) | {p for p in _session(self.proc.pid)} | _naming(self.tmp_path)
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert not left, {p: command(p)[:200] for p in left}


def _session(leader: int) -> set[int]:
    return {p for p in campaign_processes(leader) if stat(p) is not None}


def _naming(folder: Path) -> set[int]:
    return {
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and int(p) != os.getpid() and str(folder) in command(int(p))
    }


def _out_dir_whole(out: Path) -> None:
    """The out dir as a reader sees it: unlocked; stats.json, corpus/ and failures/ read
    without a problem; `lambdafuzz report` reads it."""
    if not out.exists():  # interrupted before the campaign took it
        return
    assert not (out / LOCK_FILE).exists()
    if (out / "stats.json").exists():
        json.loads((out / "stats.json").read_text())
    for path in [*out.glob("corpus/*.json"), *out.glob("failures/*.json")]:
        load_input(path)
    if (out / "campaign.json").exists():
        problems = OutDir(out).read().problems
        assert not problems, problems
        result = CliRunner().invoke(cli, ["report", str(out)])
        assert result.exit_code in (0, 1), result.output
        assert isinstance(result.exception, SystemExit | None), result.exception


# =========================================================================== campaigns
@pytest.mark.parametrize("at_s", [0.3, 1.0, 2.0])
def test_ctrl_c_during_start_up_stops_the_campaign_at_once(tmp_path, at_s):
    # config loading, the analysis, the fork server's and the workers' start: a Ctrl-C in
    # them was dropped (the campaign ran its budget) or ended in click's "Aborted!", exit 1
    config = _config(tmp_path, "hostile.handler.returns_ok")
    out = tmp_path / "out"
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--time", "30")
    run.interrupt(at_s=at_s)
    _out_dir_whole(out)


def test_ctrl_c_mid_campaign_stops_after_the_tests_in_flight(tmp_path):
    config = _config(tmp_path, "hostile.handler.returns_ok")
    out = tmp_path / "out"
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--time", "30")
    run.wait_for("lambdafuzz: fuzzing")
    time.sleep(0.5)
    run.interrupt()
    assert "stopped by SIGINT" in run.stdout()  # the summary, as a budget's end shows it
    assert json.loads((out / "stats.json").read_text())["execs"] > 0
    _out_dir_whole(out)


@pytest.mark.parametrize("handler", ["hangs", "traps_ctrl_c"])
def test_ctrl_c_while_a_test_is_stuck_stops_without_waiting_for_its_timeout(tmp_path, handler):
    config = _config(tmp_path, f"hostile.handler.{handler}", timeout_s=60)
    out = tmp_path / "out"
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--time", "60")
    run.wait_for("lambdafuzz: fuzzing")
    time.sleep(0.5)  # the first test is stuck by now
    run.interrupt()
    assert json.loads((out / "stats.json").read_text())["execs"] == 0  # none answered
    _out_dir_whole(out)


def test_ctrl_c_while_a_worker_imports_a_slow_handler(tmp_path):
    config = _config(tmp_path, "hostile.slow_import.handler")
    out = tmp_path / "out"
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--time", "30")
    run.wait_for_worker()
    time.sleep(0.5)  # importing it (a minute)
    run.interrupt()
    assert "lambdafuzz: fuzzing" not in run.stdout()  # it never started its tests
    _out_dir_whole(out)


def test_a_second_ctrl_c_while_stopping_still_exits_130(tmp_path):
    config = _config(tmp_path, "hostile.handler.hangs", timeout_s=60)
    out = tmp_path / "out"
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--time", "60")
    run.wait_for("lambdafuzz: fuzzing")
    time.sleep(0.3)
    run.interrupt(presses=2)
    _out_dir_whole(out)


# =========================================================================== a resume
@pytest.fixture(scope="module")
def napping_out_dir(tmp_path_factory) -> Path:
    """An out dir of `naps` (0.1 s a test) with 40 inputs in corpus/ (fresh draws of 40
    seeds): a resume re-runs them for ~4 s before its campaign goes on."""
    tmp_path = tmp_path_factory.mktemp("nap")
    config = _config(tmp_path, "hostile.handler.naps")
    out = tmp_path / "out"
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--execs", "1", "--quiet")
    assert run.proc.wait(timeout=90) == 0, run.err.read_text()
    for i in range(40):
        name = f"id-{i:06d}"
        saved = SavedInput(name, ChoiceSequence(()), 1000 + i, MODE, "VALID", "test input")
        save_input(out / "corpus" / f"{name}.json", saved)
    return tmp_path


def test_ctrl_c_while_a_resume_re_runs_the_corpus(napping_out_dir, tmp_path):
    shutil.copytree(napping_out_dir, tmp_path / "nap")
    out = tmp_path / "nap" / "out"
    config = tmp_path / "nap" / "naps.yaml"
    saved = {p.name: p.read_bytes() for p in (out / "corpus").glob("*.json")}
    run = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--time", "30")
    run.wait_for("lambdafuzz: fuzzing")
    time.sleep(1.0)  # ~10 of the 40 re-run
    run.interrupt()
    execs = json.loads((out / "stats.json").read_text())["execs"]
    assert 0 < execs < len(saved)  # stopped while re-running corpus/
    assert {p.name for p in (out / "corpus").glob("*.json")} >= set(saved)  # nothing lost
    _out_dir_whole(out)


# =========================================================================== repro, minimize
def test_ctrl_c_stops_a_repro_stuck_in_a_loop(napping_out_dir, tmp_path):
    saved = sorted((napping_out_dir / "out" / "corpus").glob("*.json"))[0]
    config = _config(tmp_path, "hostile.handler.traps_ctrl_c", timeout_s=60)
    run = Command(tmp_path, "repro", str(saved), "--config", str(config))
    run.wait_for_worker()
    time.sleep(1.0)  # its handler imported, the replay running
    run.interrupt()
    assert "== outcome" not in run.stdout()


def test_ctrl_c_stops_minimize_and_keeps_the_input(tmp_path):
    config = _config(tmp_path, "hostile.handler.fails_slowly")
    out = tmp_path / "out"
    found = Command(tmp_path, "fuzz", str(config), "--out", str(out), "--execs", "1", "--quiet")
    assert found.proc.wait(timeout=90) == 1, found.err.read_text()
    (failing,) = (out / "failures").glob("*.json")
    before = failing.read_bytes()
    run = Command(tmp_path, "minimize", str(failing), "--config", str(config))
    run.wait_for_worker()
    time.sleep(1.5)  # the original replayed (0.2 s), shrinking
    run.interrupt()
    assert failing.read_bytes() == before
    assert [p.name for p in (out / "failures").iterdir()] == [failing.name]  # no .min.json


def test_a_command_that_has_decided_its_exit_ignores_a_late_ctrl_c(tmp_path):
    # The interpreter's finalization puts SIGINT back to its default action before the
    # process exits: a Ctrl-C in that window killed a campaign exiting 2 on a setup error
    # (a worker killed while it started) with -SIGINT.  Once `main` is done, SIGINT is
    # ignored, which finalization leaves alone.
    script = (
        "import signal, sys\n"
        "from lambdafuzz.cli import main\n"
        "sys.argv = ['lambdafuzz', 'fuzz', sys.argv[1]]\n"
        "try:\n"
        "    main.main()\n"
        "except SystemExit as stop:\n"
        "    print(stop.code, signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "missing.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[3],
    )
    assert done.stdout.split() == ["2", "True"], done.stdout + done.stderr
