"""The target's sample events as the campaign's first inputs (`seed-event-<file>`).

A sample's seed is the recording of the generators' seed path (`generators/aws/
sample_events.py`) drawn with "this sample" as its first choices: the recording replays
the sample exactly, and mutating it changes the sample's leaves while the world stays
generated.  Made here, in the campaign process, so the corpus file holds the whole
recording like any other input.
"""

from __future__ import annotations

import re

from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.generators.aws.sample_events import sample_prefix
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices, ReplayMode, StopTest

#: Corpus names of sample seeds start so: the file tells where the input came from.
PREFIX = "seed-event-"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def seed_name(sample: str) -> str:
    """`seed-event-<file stem>`, with what a file name should not hold replaced."""
    return PREFIX + (_UNSAFE.sub("_", sample).strip(".") or "sample")


def sample_seeds(options: CampaignOptions, taken: set[str]) -> tuple[list[SavedInput], list[str]]:
    """One seed per sample of the target, except those whose name is `taken` (corpus/ of
    a resumed campaign holds them already), and why any sample made no input."""
    target = options.target
    seeds: list[SavedInput] = []
    problems: list[str] = []
    names: set[str] = set()
    for index, sample in enumerate(target.samples):
        name = seed_name(sample.name)
        while name in names:
            name += "_"
        names.add(name)
        if name in taken:
            continue
        choices = Choices(
            sample_prefix(target, index),
            seed=0,
            mode=ReplayMode.LINEAR,
            policy=options.policy,
        )
        try:
            generate_input(choices, target)
        except StopTest as exc:
            problems.append(f"sample event {sample.name!r} made no input: {exc}; skipped")
            continue
        except Exception as exc:  # noqa: BLE001 - a generator bug must not stop the campaign
            problems.append(
                f"sample event {sample.name!r}: a generator raised "
                f"{type(exc).__name__}: {exc}; skipped"
            )
            continue
        recording = choices.recording()
        seeds.append(SavedInput(name, recording, 0, options.mode, "", "sample event"))
    return seeds, problems
