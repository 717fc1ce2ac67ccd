"""`lambdafuzz analyze`: the static analysis SpotOn's targeting is built on, and everything
a strategy's draws take from the code (`fuzzer/harvest.py`, the campaign's own assembly)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lambdafuzz.cli.options import (
    EnumChoice,
    config_argument,
    function_option,
    target_from_options,
)


@click.command(epilog="Example: lambdafuzz analyze benchmarks/lambdas/year_thumbnails")
@config_argument
@function_option
@click.option(
    "--strategy",
    type=EnumChoice("lambdafuzz.fuzzer.options:Strategy"),
    default="frontier",
    show_default=True,
    help="Show the harvest this strategy's campaigns draw from.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option(
    "--no-cache", is_flag=True, help="Analyse even when a cached result for these sources exists."
)
def analyze(
    config: Path, function_name: str | None, strategy, as_json: bool, no_cache: bool
) -> None:
    """Branch targets with their influencing types and distances, the unified type table,
    how many targets a generator can steer, and the strategy's harvest: the strings,
    numbers, field names and key values its campaigns draw."""
    from lambdafuzz.fuzzer.harvest import build_harvest
    from lambdafuzz.fuzzer.targeting import analyze_target

    target = target_from_options(config, function_name)
    # the analysis the strategy's campaign reads (rich for the default), or the paper's
    # one for a strategy that reads none: its targets are shown all the same
    result = analyze_target(target, use_cache=not no_cache, rich=strategy.rich_harvest)
    harvest = build_harvest(target, strategy, result)
    if as_json:
        document = json.loads(result.to_json())
        document["strategy"] = str(strategy)
        document["harvest"] = harvest.to_dict()
        click.echo(json.dumps(document, indent=1))
        return
    from lambdafuzz.analysis import render_text

    click.echo(render_text(result, constants=False), nl=False)
    click.echo(_render_harvest(harvest, str(strategy)))


def _render_harvest(harvest, strategy: str) -> str:  # harvest: fuzzer.harvest.Harvest
    """Each part of the harvest under its own heading, with its count."""
    parts = (
        ("Strings", [repr(s) for s in harvest.strings]),
        ("Numbers", [repr(n) for n in harvest.numbers]),
        ("Field names", [repr(f) for f in harvest.fields]),
        ("Key values", [f"{a}={v!r}" for a, v in harvest.key_values]),
    )
    lines = ["", f"Harvest of strategy {strategy} (what its campaigns' draws take)"]
    for heading, values in parts:
        lines.append(f"{heading} ({len(values)}): " + (", ".join(values) or "(none)"))
    return "\n".join(lines)
