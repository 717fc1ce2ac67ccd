"""Saved inputs replay exactly, minimize works on every saved failure, resume keeps records.

One seeded campaign per dictionary-using strategy on the bundled gradebook lambda; every
corpus input and failure is replayed through the Replayer, `repro` and the pytest plugin.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_target
from lambdafuzz.config.campaign import campaign_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import SavedInput, _json_default, iter_inputs
from lambdafuzz.fuzzer.events import CampaignFinished
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.fuzzer.replay import Replayer

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmarks" / "lambdas" / "gradebook"

pytest_plugins = ["pytester"]


def plugin_args() -> list[str]:
    """`-p lambdafuzz.pytest_plugin` unless its entry point is installed (it is with -e .)."""
    from importlib.metadata import entry_points

    installed = any(ep.name == "lambdafuzz" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "lambdafuzz.pytest_plugin"]


def _campaign(out: Path, strategy: str, seed: int, execs: int) -> Path:
    engine = build_engine(
        load_target(GRADEBOOK), out_dir=out, strategy=strategy, seed=seed, max_execs=execs
    )
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return out


@pytest.fixture(scope="module")
def seeded_runs(tmp_path_factory) -> Callable[[str], Path]:
    """The seeded campaign of a strategy (seed 1, 400 executions), run once per module: the
    replay tests only read it and the minimize tests work on a copy (a second identical
    spoton campaign cost ~15 s)."""
    made: dict[str, Path] = {}

    def run(strategy: str) -> Path:
        if strategy not in made:
            made[strategy] = _campaign(tmp_path_factory.mktemp(strategy), strategy, 1, 400)
        return made[strategy]

    return run


# frontier: the default, whose inputs also depend on the code's numbers and edge values;
# spoton: the paper's dictionary strategy (zest-strings replays alike)
@pytest.fixture(scope="module", params=["spoton", "frontier"])
def campaign(request, seeded_runs) -> Path:
    return seeded_runs(request.param)


def _saved_inputs(out: Path) -> list[SavedInput]:
    items = [*iter_inputs(out / "corpus"), *iter_inputs(out / "failures")]
    assert not [i for i in items if isinstance(i, Exception)]
    return items


def _plain(value):
    return json.loads(json.dumps(value, default=_json_default))


@pytest.mark.slow
def test_every_saved_input_replays_to_the_same_world_event_and_outcome(campaign):
    directory = OutDir(campaign).read()
    assert directory.meta is not None and directory.meta.policy.dictionary  # recorded for replay
    saved_inputs = _saved_inputs(campaign)
    assert directory.failures, "the seeded campaign finds gradebook's failures"
    with Replayer.for_campaign(campaign_target(directory), directory.meta) as replayer:
        for saved in saved_inputs:
            result = replayer.replay(saved)
            assert result.status.name == saved.outcome, saved.name
            assert _plain(result.event) == saved.event, saved.name
            assert replayer.summarize(result.recording) == saved.world, saved.name
            assert result.recording.values() == saved.sequence.values(), saved.name
            if saved.failure is not None:
                assert result.failure is not None
                assert result.failure.signature == saved.failure["signature"]


@pytest.mark.slow
def test_repro_prints_the_saved_world_and_event_of_every_failure(campaign):
    runner = CliRunner()
    for entry in OutDir(campaign).read().failures:
        result = runner.invoke(cli, ["repro", str(entry.path)])
        assert result.exit_code == 1, result.output
        world_text, _, rest = result.output.partition("== event\n")
        event_text, _, rest = rest.partition("== log\n")
        _log, _, outcome = rest.partition("== outcome: ")
        assert json.loads(world_text.removeprefix("== world\n")) == entry.saved.world
        assert _plain(json.loads(event_text)) == entry.saved.event
        assert outcome.startswith(entry.saved.outcome)
        assert f"failure: {entry.signature}" in outcome


@pytest.mark.slow
def test_the_pytest_plugin_replays_every_failure_as_the_same_failure(campaign, pytester):
    failures = OutDir(campaign).read().failures
    shutil.copytree(campaign, pytester.path / "out")
    result = pytester.runpytest(*plugin_args(), "--lambdafuzz-corpus", "out", "-rA")
    result.assert_outcomes(failed=len(failures), passed=1)  # coverage reached again
    # The short summary repeats each message in full when CI is set, so count the reports only.
    reports = result.stdout.str().partition("short test summary info")[0]
    assert reports.count("saved failure still fails (the same failure)") == len(failures)


@pytest.fixture(scope="module")
def minimized_campaign(
    seeded_runs, tmp_path_factory
) -> tuple[Path, dict[str, dict], dict[str, bytes]]:
    """A spoton campaign (a copy of the seeded one), every failure minimized with the
    command line."""
    out = tmp_path_factory.mktemp("minimized")  # as deep as the original: same relative paths
    shutil.copytree(seeded_runs("spoton"), out, dirs_exist_ok=True)
    before = {e.path.name: e.saved.failure for e in OutDir(out).read().failures}
    runner = CliRunner()
    for name in before:
        result = runner.invoke(
            cli, ["minimize", str(out / "failures" / name), "--max-attempts", "80"]
        )
        assert result.exit_code == 0, result.output
    minimized = {p.name: p.read_bytes() for p in (out / "failures").glob("*.min.json")}
    return out, before, minimized


@pytest.mark.slow
def test_minimize_works_on_every_saved_failure_and_still_fails_the_same_way(minimized_campaign):
    out, before, minimized = minimized_campaign
    assert len(before) >= 2 and len(minimized) == len(before)
    runner = CliRunner()
    for entry in OutDir(out).read().failures:
        assert entry.minimized is not None
        result = runner.invoke(cli, ["repro", str(entry.minimized)])
        assert result.exit_code == 1, result.output
        assert f"failure: {entry.signature}" in result.output
        small = json.loads(entry.minimized.read_text())
        assert len(small["sequence"]) <= len(json.loads(entry.path.read_text())["sequence"])
        assert small["failure"]["location"] == entry.location


@pytest.mark.slow
def test_resume_after_minimize_keeps_every_failure_record_and_its_hits(minimized_campaign):
    out, before, minimized = minimized_campaign
    _campaign(out, "spoton", seed=2, execs=300)
    after = {e.path.name: e for e in OutDir(out).read().failures}
    assert set(before) <= set(after)  # a resumed campaign may find more, and lose none
    assert not any(".min." in name for name in after)  # a .min.json is never a record
    grew = 0
    for name, old in before.items():
        # the bug's variant that was saved first (the file's primary may be another now)
        variant = after[name].variant(old["signature"])
        assert variant is not None, [v.signature for v in after[name].variants]
        record = variant.record
        assert record.info.exception_type == old["exception_type"] != ""
        assert record.info.location == old["location"] != ""
        assert record.info.message == old["message"]
        assert record.first_exec == old["first_exec"]
        assert record.hits >= old["hits"]
        grew += record.hits > old["hits"]
    assert grew >= 1  # the resumed campaign hit known failures again and counted them
    for name, data in minimized.items():
        assert (out / "failures" / name).read_bytes() == data  # left untouched
