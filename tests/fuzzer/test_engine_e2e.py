"""End to end: fuzz real handlers for a bounded number of executions, assert what is found."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.harness.process.pool import WorkerPool
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec

ROOT = Path(__file__).resolve().parents[2]
PLANTED = Path(__file__).parent / "planted"
GRADEBOOK = ROOT / "benchmarks" / "lambdas" / "gradebook"


def run_campaign(config: Path, out: Path, **kwargs):
    engine = build_engine(load_config(config), out_dir=out, **kwargs)
    events = list(engine.run())
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    return engine, events, finished


#: zest at seed 3 finds the planted bug at execution 127 and its corpus (4 inputs, 8 arms)
#: is complete by then (the same at 400 and 1500 executions): 500 keeps a 4x margin
PLANTED_EXECS = 500


@pytest.fixture(scope="module")
def planted_campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("planted")
    engine, events, finished = run_campaign(
        PLANTED, out, strategy="zest", seed=3, max_execs=PLANTED_EXECS
    )
    return out, engine, events, finished


def test_zest_finds_the_planted_bug(planted_campaign):
    out, engine, events, finished = planted_campaign
    failures = [e.record for e in events if isinstance(e, NewFailure)]
    signatures = [f.signature for f in failures]
    assert any("AccountReprocessed" in s for s in signatures), (signatures, finished.stats)
    bug = next(f for f in failures if "AccountReprocessed" in f.signature)
    assert bug.info.location.startswith("planted/handler.py:")
    assert (out / "failures" / bug.file_name).is_file()
    stats = json.loads((out / "stats.json").read_text())
    for key in (
        "strategy",
        "seed",
        "execs",
        "valid_execs",
        "elapsed_s",
        "execs_per_sec",
        "app_branches_total",
        "app_branches_covered",
        "valid_branches_covered",
        "corpus_size",
        "unique_failures",
        "time_in_handler_s",
    ):
        assert key in stats
    assert stats["execs"] == PLANTED_EXECS
    assert 0 < stats["app_branches_covered"] <= stats["app_branches_total"]
    rows = (out / "plot_data.csv").read_text().splitlines()
    assert rows[0].startswith("time_s,execs,branches")


def test_repro_and_minimize_the_planted_bug(planted_campaign):
    out, engine, events, finished = planted_campaign
    bug = next(
        e.record
        for e in events
        if isinstance(e, NewFailure) and "AccountReprocessed" in e.record.signature
    )
    path = out / "failures" / bug.file_name
    runner = CliRunner()
    result = runner.invoke(cli, ["repro", str(path)])
    assert result.exit_code == 1, result.output
    assert "AccountReprocessed" in result.output
    assert "== world" in result.output and "== event" in result.output

    result = runner.invoke(cli, ["minimize", str(path), "--max-attempts", "120"])
    assert result.exit_code == 0, result.output
    minimized = path.with_name(path.name.removesuffix(".json") + ".min.json")
    small = json.loads(minimized.read_text())
    big = json.loads(path.read_text())
    # smaller by the minimizer's order: fewer draws, or as many with smaller values
    sizes = re.search(r"(\d+) -> (\d+) draws, size (\d+) -> (\d+)", result.output)
    assert sizes, result.output
    draws_before, draws_after, size_before, size_after = map(int, sizes.groups())
    assert (draws_after, size_after) < (draws_before, size_before)
    assert draws_before == len(big["sequence"]) and draws_after == len(small["sequence"])
    assert small["failure"]["signature"] == bug.signature
    result = runner.invoke(cli, ["repro", str(minimized)])
    assert result.exit_code == 1 and "AccountReprocessed" in result.output


def test_same_seed_same_budget_is_deterministic(tmp_path):
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        run_campaign(GRADEBOOK, out, strategy="zest", seed=11, max_execs=150)
        stats = json.loads((out / "stats.json").read_text())
        names = sorted(p.name for p in (out / "corpus").glob("*.json"))
        failures = sorted(p.name for p in (out / "failures").glob("*.json"))
        runs.append(
            (
                stats["app_branches_covered"],
                stats["valid_branches_covered"],
                stats["corpus_size"],
                stats["unique_failures"],
                names,
                failures,
            )
        )
    assert runs[0] == runs[1]
    assert runs[0][0] > 0


class _WatchedReruns(WorkerPool):
    """A real pool that notes how many results arrived while a background re-run ran."""

    def __init__(self, spec: WorkerSpec, size: int = 1) -> None:
        super().__init__(spec, size)
        self.futures: list[Any] = []
        self.overlapped = 0

    def rerun_later(self, request: TestRequest) -> Any:
        future = super().rerun_later(request)
        if future is not None:
            self.futures.append(future)
        return future

    def imap(self, requests: Any) -> Any:
        for pair in super().imap(requests):
            if any(not future.done() for future in self.futures):
                self.overlapped += 1
            yield pair


class _WaitedReruns(WorkerPool):
    """A real pool whose re-runs the campaign waits for, as it did before."""

    def rerun_later(self, request: TestRequest) -> None:
        return None  # none in the background: the campaign re-runs it and waits


def test_background_reruns_save_what_waited_reruns_save(tmp_path):
    """New failures are confirmed by re-runs in the background while the campaign goes on,
    and saved exactly as a campaign that waits for each re-run saves them: the same
    signatures, first executions, hits and re-run outcomes."""
    records = []
    pools: list[WorkerPool] = []
    for name, pool in (("later", _WatchedReruns), ("waited", _WaitedReruns)):
        engine = build_engine(
            load_config(GRADEBOOK), out_dir=tmp_path / name, strategy="zest", seed=5, max_execs=120
        )
        engine._pool_factory = lambda spec, size, pool=pool: (
            pools.append(pool(spec, size)) or pools[-1]
        )
        list(engine.run())
        records.append(
            sorted(
                (r.signature, r.first_exec, r.hits, r.rerun.status if r.rerun else None)
                for r in engine.failures.values()
            )
        )
        assert not engine.flaky
        assert engine.confirmation.reruns == len(engine.failures) > 0
    assert records[0] == records[1]
    assert sum(r[2] for r in records[0]) > len(records[0])  # later hits were counted
    assert pools[0].overlapped > 0  # tests ran while a re-run was out


def test_broken_config_exits_2(tmp_path):
    bad = tmp_path / "lambdafuzz.yaml"
    bad.write_text("handler: app.handler\ntrigger: carrier-pigeon\n")
    result = CliRunner().invoke(
        cli, ["fuzz", str(bad), "--execs", "5", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert "trigger" in result.output


def test_unimportable_handler_exits_2_naming_the_module(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "__init__.py").write_text("")
    (tmp_path / "broken" / "app.py").write_text("import definitely_not_installed_xyz\n")
    (tmp_path / "lambdafuzz.yaml").write_text(
        "handler: broken.app.handler\ntrigger: {kind: s3, source: inbox}\n"
        "resources:\n  buckets:\n    - name: inbox\n      objects: {min: 1, max: 1}\n"
    )
    result = CliRunner().invoke(
        cli, ["fuzz", str(tmp_path), "--execs", "5", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2, result.output
    assert "broken.app" in result.output
    assert "definitely_not_installed_xyz" in result.output


def test_sigterm_leaves_readable_files_and_resume_continues(tmp_path):
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "lambdafuzz",
        "fuzz",
        str(GRADEBOOK),
        "--time",
        "120",
        "--out",
        str(out),
        "--quiet",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not list((out / "corpus").glob("*.json")):
        time.sleep(0.5)
    time.sleep(2)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, output  # interrupted, as shells report
    assert "stopped by SIGTERM" in output
    stats = json.loads((out / "stats.json").read_text())
    assert stats["execs"] > 0
    saved = list((out / "corpus").glob("*.json")) + list((out / "failures").glob("*.json"))
    assert saved
    for path in saved:
        json.loads(path.read_text())  # every saved file is complete JSON
    assert not [p for p in out.rglob("*.tmp")]
    first_corpus = stats["corpus_size"]

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lambdafuzz",
            "fuzz",
            str(GRADEBOOK),
            "--execs",
            "20",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode in (0, 1), result.stdout + result.stderr
    # resumed in place: every saved input is still there under its name, none moved away
    assert all(path.is_file() for path in saved) and not list(out.glob("corpus.prev*"))
    resumed = json.loads((out / "stats.json").read_text())
    assert resumed["app_branches_covered"] >= 1
    assert resumed["corpus_size"] >= min(first_corpus, 1)


def test_corpus_replay_reaches_the_saved_coverage(planted_campaign):
    out, engine, events, finished = planted_campaign
    result = CliRunner().invoke(cli, ["corpus", "replay", str(out / "corpus")])
    assert result.exit_code == 0, result.output  # the corpus holds no failing input
    stats = json.loads((out / "stats.json").read_text())
    expected = f"branches: {stats['corpus_branches_covered']}/{stats['app_branches_total']}"
    assert expected in result.output
    assert f"VALID {stats['corpus_size']}" in result.output or "INVALID" in result.output


def test_seed_corpus_starts_from_saved_inputs(planted_campaign, tmp_path):
    out, engine, events, finished = planted_campaign
    _, _, seeded = run_campaign(
        PLANTED,
        tmp_path / "seeded",
        strategy="zest",
        seed=4,
        max_execs=10,
        seed_corpora=[out / "corpus"],
    )
    first = json.loads((tmp_path / "seeded" / "corpus" / "id-000000.json").read_text())
    assert first["provenance"].startswith("seed:id-000000")
    assert seeded.stats.app_branches_covered >= finished.stats.corpus_branches_covered


def test_ctrl_c_stops_the_campaign_with_exit_130(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "lambdafuzz", "fuzz", str(PLANTED), "--time", "120"]
    cmd += ["--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (out / "stats.json").is_file():
        time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, output
    assert "stopped by SIGINT" in output
    assert json.loads((out / "stats.json").read_text())["execs"] >= 0
