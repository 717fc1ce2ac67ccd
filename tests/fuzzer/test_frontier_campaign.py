"""The default strategy, seeded: `frontier` reaches branches guarded by the code's own
constants (a frozenset of names tested with `in`, a `strptime` format) that `zest` does not
reach at the same small budget, and its saved inputs replay with its draw settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.engine import CampaignFinished, NewFailure
from lambdafuzz.fuzzer.options import CampaignOptions, Strategy
from lambdafuzz.fuzzer.out_dir import CampaignMeta, read_campaign_dir
from lambdafuzz.fuzzer.replay import Replayer

WORDLIST = Path(__file__).parent / "wordlist"
# frontier, seed 6: Stamped at execution 3, KnownLine at 65 (with records and edge plans,
# seeds 0-9 at 90 executions reach both only for seed 6, one of them for seeds 1 and 4;
# zest, seeds 0-9, 90 executions: neither)
EXECS = 90
SEED = 6
PLANTED = {"KnownLine", "Stamped"}


def _found(strategy: str, out: Path) -> set[str]:
    engine = build_engine(
        load_config(WORDLIST), out_dir=out, strategy=strategy, seed=SEED, max_execs=EXECS
    )
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return {e.record.signature.split(" at ")[0].rsplit(".", 1)[-1] for e in events
            if isinstance(e, NewFailure)}  # fmt: skip


@pytest.fixture(scope="module")
def frontier_campaign(tmp_path_factory) -> tuple[Path, set[str]]:
    out = tmp_path_factory.mktemp("frontier")
    return out, _found("frontier", out)


def test_frontier_is_the_default():
    assert CampaignOptions.__dataclass_fields__["strategy"].default is Strategy.FRONTIER


def test_frontier_reaches_the_membership_and_date_format_branches(frontier_campaign):
    assert frontier_campaign[1] & PLANTED == PLANTED


def test_zest_does_not_at_the_same_budget(tmp_path: Path):
    assert _found("zest", tmp_path) & PLANTED == set()


def test_a_frontier_campaign_records_its_draw_settings_and_replays(frontier_campaign):
    out, _ = frontier_campaign
    campaign = read_campaign_dir(out)
    meta = campaign.meta
    assert meta is not None and meta.edge_values is True
    assert set(meta.numbers) == {39, 40, 41}  # MAX_WORDS and its neighbours
    assert campaign.failures
    with Replayer.for_campaign(load_config(WORDLIST), meta) as replayer:
        for failure in campaign.failures:
            result = replayer.replay(failure.saved, want_event=False)
            assert result.failure is not None
            assert result.failure.signature == failure.signature
    old = CampaignMeta.from_json({"handler": "h", "mode": "linear"})  # before the fields
    assert (old.numbers, old.edge_values) == ((), False)
