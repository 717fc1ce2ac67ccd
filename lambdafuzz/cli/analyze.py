"""`lambdafuzz analyze`: the static analysis SpotOn's targeting is built on."""

from __future__ import annotations

from pathlib import Path

import click

from lambdafuzz.cli.options import config_argument, function_option, target_from_options


@click.command(epilog="Example: lambdafuzz analyze benchmarks/lambdas/year_thumbnails")
@config_argument
@function_option
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option(
    "--no-cache", is_flag=True, help="Analyse even when a cached result for these sources exists."
)
def analyze(config: Path, function_name: str | None, as_json: bool, no_cache: bool) -> None:
    """Branch targets with their influencing types and distances, the unified type table,
    the constant strings, and how many targets a generator can steer."""
    from lambdafuzz.fuzzer.targeting import analyze_target

    target = target_from_options(config, function_name)
    result = analyze_target(target, use_cache=not no_cache)
    if as_json:
        click.echo(result.to_json())
        return
    from lambdafuzz.analysis import render_text

    click.echo(render_text(result))
