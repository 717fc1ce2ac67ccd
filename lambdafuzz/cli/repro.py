"""`lambdafuzz repro`: replay one saved input and show what happened."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.options import backend_options, config_option, function_option
from lambdafuzz.cli.saved_inputs import campaign_for, load_saved, start


@click.command(
    epilog="Example: lambdafuzz repro out/failures/ZeroDivisionError-at-gradebook-handler-py-31-1a2b3c4d.json"
)
@click.argument("input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@config_option
@function_option
@backend_options
@click.pass_context
def repro(
    ctx: click.Context,
    input_file: Path,
    config: Path | None,
    function_name: str | None,
    backend: str,
    endpoint: str | None,
) -> None:
    """Replay one saved input: print its world, event, what the handler printed and
    logged, its outcome and traceback.

    Exit status 1 when it fails (FAILURE or HANG), 0 otherwise.
    """
    from lambdafuzz.model.outcome import Status

    saved = load_saved(input_file)
    replayer = campaign_for(input_file, config, function_name, backend, endpoint).replayer
    with replayer:
        start(replayer)
        result = replayer.replay(saved)
    click.echo("== world")
    click.echo(json.dumps(replayer.summarize(result.recording), indent=1, default=repr))
    click.echo("== event")
    click.echo(json.dumps(result.event, indent=1, default=repr))
    click.echo("== log")  # stdout, stderr and log records, as CloudWatch would show them
    click.echo(
        result.log.rstrip("\n") if result.log else "(the handler printed and logged nothing)"
    )
    click.echo(f"== outcome: {result.status.name}")
    if result.return_value:
        click.echo(f"returned: {result.return_value}")
    if result.failure is not None:
        failure = result.failure
        click.echo(f"failure: {failure.signature}")
        if result.world_inconsistency:
            click.echo(result.world_inconsistency)
        if failure.where not in failure.signature:  # a frame outside the application: its line
            click.echo(f"where: {failure.where}")
        click.echo(failure.traceback)
    ctx.exit(int(ExitCode.FAILURES_FOUND if result.status >= Status.FAILURE else ExitCode.OK))
