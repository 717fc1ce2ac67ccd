"""A handler that stores what it is sent (`event_store/`: `put_item(Item=json.loads(body))`):
the `frontier` harvest notes that the code stores items it did not spell out
(`AnalysisResult.stores_items`), and the tables' key attribute names join the field names
JSON records are made of, so some bodies are items the table takes.  Before, no body held
the key `eventId`: every test failed with "Missing the key eventId" (or earlier), 0% valid;
with it, seeds 0 and 1 at this budget stored events in 18-25% of the tests and found the
float and number-range bugs behind them."""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure

EVENT_STORE = Path(__file__).parent / "event_store"
EXECS = 800
SEED = 0


def test_bodies_hold_the_table_s_key_and_get_stored(tmp_path: Path) -> None:
    engine = build_engine(load_config(EVENT_STORE), out_dir=tmp_path, seed=SEED, max_execs=EXECS)
    assert "eventId" in engine.options.policy.fields
    events = list(engine.run())
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    stats = finished.stats
    assert stats.app_branches_covered == 2  # the loop body, and past the loop
    assert stats.valid_execs >= EXECS // 10  # stored: the handler returned
    messages = {e.record.info.message for e in events if isinstance(e, NewFailure)}
    assert any("Float types are not supported" in m for m in messages), messages
