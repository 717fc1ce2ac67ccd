"""A corpus that cannot be lost: a real `lambdafuzz fuzz` on the gradebook lambda, killed
with SIGKILL at random moments (the whole process group, the campaign process only, or a
worker only) in 20 rounds with a resume between them, then Ctrl-C during a resume and a
resume with a budget of one execution.

After every round: every input and failure saved so far is still there and a valid saved
input, no process of the campaign is left, and (once a resume has run) no temporary file or
directory is left behind.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import SavedInput, load_input, save_input
from tests.fixtures.process_table import alive, campaign_processes, command, stat

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmarks" / "lambdas" / "gradebook"
ROUNDS = 20
MODES = ("group", "main", "worker")
#: Copies of the saved inputs (other seeds) added to corpus/ so a resume has work to do.
EXTRA_INPUTS = 12


pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


# =========================================================================== the out dir
def _saved_files(out: Path) -> dict[str, str]:
    """Every saved input and failure: relative path -> its sequence and seed."""
    files = {}
    for folder in ("corpus", "failures"):
        for path in sorted((out / folder).glob("*.json")):
            saved = load_input(path)  # a valid saved input, or CorpusError fails the test
            files[f"{folder}/{path.name}"] = json.dumps(
                [saved.seed, [c.value for c in saved.sequence.choices]], default=repr
            )
    return files


def _temp_files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*.tmp"))


@pytest.fixture(scope="module")
def fresh_campaign(tmp_path_factory) -> Path:
    """The fresh campaign every out dir here starts from, run once (each test copies it:
    a second identical campaign cost ~10 s, most of it re-running its 3 failures)."""
    # zest: its generation does not move with the harvest and edge values of the default
    # strategy, so seed 1 keeps a valid input; the resumes below run the default, under
    # which these inputs replay to other recordings (their files must keep their choices).
    # Seed 1 has its 3 corpus inputs and 3 failures by execution 15 (nothing new up to 60)
    out = tmp_path_factory.mktemp("fresh") / "out"
    engine = build_engine(
        load_config(GRADEBOOK), out_dir=out, strategy="zest", seed=1, max_execs=25
    )
    for _ in engine.run():
        pass
    return out


def _seed_out_dir(fresh: Path, out: Path, extra: int = EXTRA_INPUTS) -> None:
    """A copy of the fresh campaign (at the same depth, so its recorded config path still
    resolves), plus `extra` copies of its inputs under other seeds in corpus/."""
    shutil.copytree(fresh, out)
    inputs = [load_input(p) for p in sorted(out.glob("*/*.json"))]  # corpus/ first
    # failing inputs that covered new arms are in corpus/ too (marked failing parents)
    assert any(i.outcome == "VALID" for i in inputs) and len(inputs) >= 2, [
        i.outcome for i in inputs
    ]
    number = len(list((out / "corpus").glob("*.json")))
    for i in range(extra):
        base = inputs[i % len(inputs)]
        name = f"id-{number + i:06d}"
        copy = SavedInput(
            name, base.sequence, 1000 + i, base.mode, base.outcome, "test copy", base.world
        )
        save_input(out / "corpus" / f"{name}.json", copy)


def _fuzz(out: Path, tmpdir: Path, logs: Path, *budget: str) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(tmpdir), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "lambdafuzz", "fuzz", str(GRADEBOOK), "--out", str(out)]
    return subprocess.Popen(
        [*cmd, *budget, "--quiet"],
        env=env,
        start_new_session=True,  # its own process group and session, like a CI job
        stdout=(logs.with_suffix(".out")).open("w"),
        stderr=(logs.with_suffix(".err")).open("w"),
    )


# =========================================================================== kill rounds
@dataclass
class Rounds:
    out: Path
    tmpdir: Path
    log: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # saved files that disappeared or changed
    orphans: list[str] = field(default_factory=list)
    stray_temp_files: list[str] = field(default_factory=list)
    stray_temp_dirs: list[str] = field(default_factory=list)
    bad_exits: list[str] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)


def _worker_of(leader: int, deadline: float) -> int | None:
    """A worker of the campaign: a child of its fork server (or, spawned, of the campaign
    itself) - not the server, multiprocessing's resource tracker or a janitor."""
    while time.monotonic() < deadline:
        processes = campaign_processes(leader)
        servers = {
            p
            for p in processes
            if (info := stat(p)) and info[0] == leader and "forkserver" in command(p)
        }
        workers = [
            p
            for p in sorted(processes)
            if (info := stat(p))
            and (
                info[0] in servers or (info[0] == leader and "multiprocessing.spawn" in command(p))
            )
        ]
        if workers:
            return workers[0]
        time.sleep(0.05)
    return None


def _one_round(r: Rounds, n: int, mode: str, rng: random.Random) -> None:
    before = _saved_files(r.out)
    logs = r.out.parent / f"round-{n:02d}"
    proc = _fuzz(r.out, r.tmpdir, logs, "--time", "60")
    seen: set[int] = set()
    delay = rng.uniform(0.2, 2.0)  # before, during or after the resume
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline and proc.poll() is None:
        seen |= campaign_processes(proc.pid)
        time.sleep(0.05)
    seen |= campaign_processes(proc.pid)
    what = mode
    if mode == "group":
        os.killpg(proc.pid, signal.SIGKILL)
    elif mode == "main":
        os.kill(proc.pid, signal.SIGKILL)
    else:
        worker = _worker_of(proc.pid, time.monotonic() + 20)
        if worker is None:
            what = "worker (none started: killed the group)"
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            seen.add(worker)
            os.kill(worker, signal.SIGKILL)
            time.sleep(rng.uniform(0.3, 0.8))  # the campaign replaces it and goes on
            seen |= campaign_processes(proc.pid)
            proc.send_signal(signal.SIGINT)  # then stops the way a user stops it
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait(timeout=10)
        r.bad_exits.append(f"round {n} ({what}): did not stop within 30 s of SIGINT")
    if mode == "worker" and what == "worker":
        # stopped by the SIGINT (128 + 2), or, for a worker killed while it was still
        # starting, a setup error: exit 2 and one message, no traceback
        err = logs.with_suffix(".err").read_text()
        if not (code == 128 + signal.SIGINT or (code == 2 and "Traceback" not in err)):
            r.bad_exits.append(f"round {n} ({what}): exit {code} after SIGINT: {err[-2000:]}")
    deadline = time.monotonic() + 5  # a worker notices the closed pipe and exits
    while alive(seen | campaign_processes(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = alive(seen | campaign_processes(proc.pid))
    if left:
        r.orphans.append(f"round {n} ({what}): {sorted(left)} outlived the campaign")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    after = _saved_files(r.out)
    for rel, content in before.items():
        if after.get(rel) is None:
            r.lost.append(f"round {n} ({what}): {rel} disappeared")
        elif rel.startswith("corpus/") and after[rel] != content:
            r.lost.append(f"round {n} ({what}): {rel} now holds another input")
    if list(r.out.glob("corpus.prev*")):
        r.lost.append(f"round {n} ({what}): the corpus was moved to corpus.prevN")
    # a killed campaign leaves its workers' dirs to their janitors, which remove them once
    # worker and campaign are both gone: asynchronously, within moments
    deadline = time.monotonic() + 10
    while any(r.tmpdir.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    dirs = sorted(p.name for p in r.tmpdir.iterdir())
    if dirs:
        r.stray_temp_dirs.append(f"round {n} ({what}): {dirs}")
        for p in r.tmpdir.iterdir():
            shutil.rmtree(p, ignore_errors=True)
    r.kinds[what] = r.kinds.get(what, 0) + 1
    r.log.append(f"round {n}: {what} after {delay:.2f} s, exit {code}, {len(after)} saved files")


@pytest.fixture(scope="module")
def rounds(fresh_campaign, tmp_path_factory) -> Rounds:
    root = tmp_path_factory.mktemp("kill")
    r = Rounds(out=root / "out", tmpdir=root / "tmp")
    r.tmpdir.mkdir()
    _seed_out_dir(fresh_campaign, r.out)
    seed = int(os.environ.get("LAMBDAFUZZ_KILL_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    r.log.append(f"LAMBDAFUZZ_KILL_SEED={seed}")
    for n in range(ROUNDS):
        _one_round(r, n, MODES[n % len(MODES)], rng)
    # a last, uninterrupted resume finishes what the kills interrupted
    before = _saved_files(r.out)
    proc = _fuzz(r.out, r.tmpdir, root / "final", "--execs", "5")
    code = proc.wait(timeout=120)
    if code not in (0, 1):
        r.bad_exits.append(f"final resume: exit {code}: {(root / 'final.err').read_text()}")
    after = _saved_files(r.out)
    r.lost += [f"final resume: {rel} disappeared" for rel in before if rel not in after]
    r.stray_temp_files = _temp_files(r.out)
    print("\n".join(r.log))
    return r


def test_kill_9_at_random_moments_loses_no_saved_input(rounds):
    assert sum(rounds.kinds.values()) == ROUNDS
    assert not rounds.lost, "\n".join(rounds.lost + rounds.log)
    assert not rounds.bad_exits, "\n".join(rounds.bad_exits + rounds.log)
    assert len(_saved_files(rounds.out)) >= EXTRA_INPUTS


def test_a_resume_removes_the_temporary_files_of_killed_writes(rounds):
    assert rounds.stray_temp_files == []


def test_no_campaign_process_outlives_a_kill(rounds):
    # Workers exit when the campaign's end of their pipe closes, and by parent-death
    # signal plus a watchdog when it is killed (also after the handler called setsid()).
    assert not rounds.orphans, "\n".join(rounds.orphans + rounds.log)


def test_no_temp_dir_outlives_a_kill(rounds):
    assert not rounds.stray_temp_dirs, "\n".join(rounds.stray_temp_dirs + rounds.log)


def test_a_group_kill_while_a_worker_starts_leaves_no_temp_dir(tmp_path):
    # The moment a worker process exists it is still importing: its dir must not exist
    # yet, or must already have a janitor in a session of its own (which the kill spares).
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    rng = random.Random(7)
    left = []
    for n in range(6):
        proc = _fuzz(tmp_path / "out", tmpdir, tmp_path / f"start{n}", "--execs", "100000")
        deadline = time.monotonic() + 30
        while not campaign_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.15))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(tmpdir.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        left += [f"round {n}: {p.name}" for p in tmpdir.iterdir()]
        for p in tmpdir.iterdir():
            shutil.rmtree(p, ignore_errors=True)
    assert left == []


# =========================================================================== Ctrl-C, short budget
def test_ctrl_c_during_resume_then_a_one_execution_resume_lose_nothing(fresh_campaign, tmp_path):
    out = tmp_path / "out"
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    _seed_out_dir(fresh_campaign, out, extra=60)
    saved = _saved_files(out)
    assert len(saved) >= 60

    started = time.time()
    proc = _fuzz(out, tmpdir, tmp_path / "interrupted", "--time", "60")
    # once the first saved input has been re-run and re-saved in place, the resume is
    # under way (about 60 more to go): Ctrl-C now
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if any(p.stat().st_mtime >= started for p in (out / "corpus").glob("*.json")):
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
    code = proc.wait(timeout=30)  # 128 + SIGINT: stopped by Ctrl-C, cleanly
    assert code == 128 + signal.SIGINT, (tmp_path / "interrupted.err").read_text()
    assert "stopped by SIGINT" in (tmp_path / "interrupted.out").read_text()
    interrupted = json.loads((out / "stats.json").read_text())
    assert 0 < interrupted["execs"] < 60  # stopped while re-running the saved inputs
    after = _saved_files(out)
    assert {rel: after.get(rel) for rel in saved if rel.startswith("corpus/")} == {
        rel: content for rel, content in saved.items() if rel.startswith("corpus/")
    }
    assert set(saved) <= set(after)

    proc = _fuzz(out, tmpdir, tmp_path / "short", "--execs", "1")
    assert proc.wait(timeout=60) in (0, 1), (tmp_path / "short.err").read_text()
    final = _saved_files(out)
    assert set(saved) <= set(final)
    assert all(final[rel] == content for rel, content in saved.items() if "corpus/" in rel)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["execs"] == 1  # one input re-ran; the others are still on disk for the next
    assert not list(out.glob("corpus.prev*")) and _temp_files(out) == []
