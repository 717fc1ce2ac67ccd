"""A single-table design, end to end (`people_api/`, a SAM template): the handler looks a
person up by `Key={"PK": person_id, "SK": "PROFILE"}`, so only an item whose sort key is
the constant PROFILE is found.  The `frontier` harvest keeps the code's key values with
their attributes (`AnalysisResult.key_values`), a table's string keys take them half the
time (`dynamodb.code_key`), and the path parameter reuses the items' partition keys: a
seeded campaign finds a profile and gets to the `json.dumps` of its attributes, which
fails on DynamoDB's Decimal, set and Binary values.  Before key values, seeds 0-3 at this
budget covered 1 of 2 branches and found nothing (no item ever had the sort key
PROFILE); now all four find the profile and three of them a failure."""

from __future__ import annotations

from pathlib import Path

from handler_lines import line_of

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.fuzzer.out_dir import CampaignMeta, read_campaign_dir
from lambdafuzz.fuzzer.replay import Replayer

PEOPLE_API = Path(__file__).parent / "people_api"
HANDLER = PEOPLE_API / "src" / "profile.py"
EXECS = 1500
SEED = 2


def test_a_campaign_finds_the_item_under_the_code_s_constant_sort_key(tmp_path: Path) -> None:
    target = load_target(PEOPLE_API / "template.yaml", warn=False)
    engine = build_engine(target, out_dir=tmp_path, seed=SEED, max_execs=EXECS)
    assert ("SK", "PROFILE") in engine.options.policy.key_values
    assert ("SK", "VISIT#") in engine.options.policy.key_values
    events = list(engine.run())
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    assert finished.stats.app_branches_covered == 2  # found and not found
    failures = [e.record.info for e in events if isinstance(e, NewFailure)]
    dumps = f"profile.py:{line_of(HANDLER, 'json.dumps(summary)')}"
    assert failures and {info.location for info in failures} == {dumps}, failures
    assert all("is not JSON serializable" in info.message for info in failures)
    # campaign.json records the key values, and the failures replay with them
    campaign = read_campaign_dir(tmp_path)
    assert campaign.meta is not None
    assert campaign.meta.policy.key_values == engine.options.policy.key_values
    assert campaign.failures
    with Replayer.for_campaign(target, campaign.meta) as replayer:
        for failure in campaign.failures:
            result = replayer.replay(failure.saved, want_event=False)
            assert result.failure is not None
            assert result.failure.signature == failure.signature
    old = CampaignMeta.from_json({"handler": "h", "mode": "linear"})  # before key values
    assert old.policy.key_values == ()
