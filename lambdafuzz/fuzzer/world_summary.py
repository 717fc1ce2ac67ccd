"""The summary of the world a recording describes, regenerated (generation is pure): for
inputs whose worker did not summarise them (`harness.worker.KeptInput`), and `repro`."""

from __future__ import annotations

from typing import Any

from lambdafuzz.generators.core import Choices, ChoiceSequence, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import Target
from lambdafuzz.model.world_summary import summarize_world


def summarize_recording(
    recording: ChoiceSequence,
    target: Target,
    dictionary: tuple[str, ...] = (),
    *,
    numbers: tuple[int | float, ...] = (),
    fields: tuple[str, ...] = (),
    key_values: tuple[tuple[str, str], ...] = (),
    edge_values: bool = False,
) -> dict[str, Any] | None:
    """Regenerate the world a recording describes (generation is pure) and summarise it.
    `dictionary`, `numbers`, `fields`, `key_values` and `edge_values` are the campaign's: a dictionary
    draw records an index into it, and the others decide which draws a generator makes."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    choices = Choices(
        recording.values(),
        seed=0,
        mode=ReplayMode.LINEAR,
        policy=DrawPolicy(
            dictionary=dictionary,
            numbers=numbers,
            fields=fields,
            key_values=key_values,
            edge_values=edge_values,
        ),
    )
    try:
        generated = generate_input(choices, target)
    except Exception as exc:  # noqa: BLE001 - a summary must never break saving
        return {"error": f"could not regenerate the world: {type(exc).__name__}: {exc}"}
    return summarize_world(generated.world)
