"""The summary of the world a recording describes, regenerated (generation is pure): for
inputs whose worker did not summarise them (`harness.worker.KeptInput`), and `repro`."""

from __future__ import annotations

from typing import Any

from lambdafuzz.generators.core import Choices, ChoiceSequence, ReplayMode
from lambdafuzz.generators.draw_policy import DEFAULT_POLICY, DrawPolicy
from lambdafuzz.model.target import Target
from lambdafuzz.model.world_summary import summarize_world


def summarize_recording(
    recording: ChoiceSequence, target: Target, policy: DrawPolicy = DEFAULT_POLICY
) -> dict[str, Any] | None:
    """Regenerate the world a recording describes (generation is pure) and summarise it.
    `policy` is the campaign's: a dictionary draw records an index into its dictionary, and
    the rest decides which draws a generator makes."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    choices = Choices(recording.values(), seed=0, mode=ReplayMode.LINEAR, policy=policy)
    try:
        generated = generate_input(choices, target)
    except Exception as exc:  # noqa: BLE001 - a summary must never break saving
        return {"error": f"could not regenerate the world: {type(exc).__name__}: {exc}"}
    return summarize_world(generated.world)
