"""The failures one seeded campaign of a fixture app finds: what the generators' end-to-end
tests assert on (a bug behind an input class is found within a few hundred executions)."""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure


def found_signatures(
    app_dir: Path, out: Path, *, strategy: str = "frontier", seed: int = 1, execs: int = 300
) -> set[str]:
    """The signatures of the failures a campaign on `app_dir/lambdafuzz.yaml` found."""
    engine = build_engine(
        load_config(app_dir / "lambdafuzz.yaml"), out_dir=out, strategy=strategy, seed=seed,
        max_execs=execs,
    )  # fmt: skip
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return {e.record.signature for e in events if isinstance(e, NewFailure)}
