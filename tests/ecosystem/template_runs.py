"""What the template tests of one trigger kind share: the events a target draws seed by
seed, a fixture handler's lines named by their code, and a bounded campaign that must end
without a bug."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.events import draw_event_plan, render_event
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.target import Target
from lambdafuzz.model.world import LoadedWorld, World


def drawn_events(target: Target, seeds: Iterable[int]) -> list[dict[str, Any]]:
    """The event `target` draws for each seed, rendered without an emulator."""
    world = World()
    return [
        render_event(draw_event_plan(Choices(seed=seed), target, world), LoadedWorld(world))
        for seed in seeds
    ]


def line_of(path: Path, text: str) -> int:
    """The number of the first line of `path` that contains `text`."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} is not in {path}")


def reached_without_a_bug(target: Target, out_dir: Path, *, seed: int, execs: int) -> set[int]:
    """Run a campaign of `execs` executions; assert it ended and found no bug; the lines
    its covered arms lead to."""
    engine = build_engine(target, out_dir=out_dir, seed=seed, max_execs=execs)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    assert [e for e in events if isinstance(e, NewFailure)] == []
    return {arm.to_line for arm in engine.coverage().covered}
