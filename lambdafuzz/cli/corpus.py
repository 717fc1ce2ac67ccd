"""`lambdafuzz corpus replay`: the coverage a saved corpus reaches."""

from __future__ import annotations

from pathlib import Path

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.options import backend_options, config_option, function_option
from lambdafuzz.cli.saved_inputs import campaign_for, start


@click.group()
def corpus() -> None:
    """Work with a saved corpus."""


@corpus.command(
    "replay", epilog="Example: lambdafuzz corpus replay out/corpus --config app/lambdafuzz.yaml"
)
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@config_option
@function_option
@backend_options
@click.pass_context
def corpus_replay(
    ctx: click.Context,
    directory: Path,
    config: Path | None,
    function_name: str | None,
    backend: str,
    endpoint: str | None,
) -> None:
    """Replay every input in DIRECTORY and print the branch coverage they reach."""
    from lambdafuzz.fuzzer.corpus import iter_inputs
    from lambdafuzz.model.outcome import Status

    replayer = campaign_for(directory, config, function_name, backend, endpoint).replayer
    counts = {s: 0 for s in Status}
    failures: set[str] = set()
    with replayer:
        start(replayer)
        arms: set = set(replayer.info.import_coverage)
        total = replayer.info.app_arms_total
        for item in iter_inputs(directory):
            if isinstance(item, Exception):
                click.echo(f"warning [corpus-corrupt]: skipped {item}", err=True)
                continue
            result = replayer.replay(item, want_event=False)
            arms.update(result.coverage)
            counts[result.status] += 1
            if result.failure is not None:
                failures.add(result.failure.signature)
    pct = f" ({100.0 * len(arms) / total:.1f}%)" if total else ""
    click.echo(f"replayed {sum(counts.values())} inputs from {directory}")
    click.echo("outcomes: " + ", ".join(f"{s.name} {n}" for s, n in counts.items()))
    click.echo(f"branches: {len(arms)}/{total}{pct}")
    for signature in sorted(failures):
        click.echo(f"failure: {signature}")
    ctx.exit(int(ExitCode.FAILURES_FOUND if failures else ExitCode.OK))
