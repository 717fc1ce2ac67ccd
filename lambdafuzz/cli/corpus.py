"""`lambdafuzz corpus replay`: the coverage a saved corpus reaches."""

from __future__ import annotations

from pathlib import Path

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.options import backend_options, config_option, function_option
from lambdafuzz.cli.saved_inputs import InputError, campaign_for, start
from lambdafuzz.model.emulation import BackendKind


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
@click.option(
    "--skip-corrupt",
    is_flag=True,
    help="Replay the readable inputs when some are not (each is listed); "
    "without it an unreadable input stops the replay with exit status 2.",
)
@click.pass_context
def corpus_replay(
    ctx: click.Context,
    directory: Path,
    config: Path | None,
    function_name: str | None,
    backend: BackendKind,
    endpoint: str | None,
    skip_corrupt: bool,
) -> None:
    """Replay every input in DIRECTORY and print the branch coverage they reach.

    Exit status 1 when an input fails, 2 when an input cannot be read (see --skip-corrupt).
    An input the campaign kept as a parent although it failed (`"failing": true`, also in
    failures/) is expected to fail: listed apart, not in the exit status.
    """
    from lambdafuzz.fuzzer.corpus import SavedInput, iter_inputs
    from lambdafuzz.model.outcome import Status

    inputs: list[SavedInput] = []
    unreadable: list[str] = []
    for item in iter_inputs(directory):
        if isinstance(item, SavedInput):
            inputs.append(item)
        else:
            unreadable.append(str(item))
    if unreadable and not skip_corrupt:
        for problem in unreadable[:-1]:
            click.echo(f"lambdafuzz: unreadable: {problem}", err=True)
        more = f" ({len(unreadable)} unreadable inputs, all listed)" if len(unreadable) > 1 else ""
        raise InputError(f"{unreadable[-1]}{more}; --skip-corrupt replays the readable ones")
    for problem in unreadable:
        click.echo(f"lambdafuzz: warning [corpus-corrupt]: skipped {problem}", err=True)
    replayer = campaign_for(directory, config, function_name, backend, endpoint).replayer
    counts = {s: 0 for s in Status}
    failures: set[str] = set()
    expected: set[str] = set()  # failing parents that failed again
    with replayer:
        start(replayer)
        arms: set = set(replayer.info.import_coverage)
        total = replayer.info.app_arms_total
        for item in inputs:
            result = replayer.replay(item, want_event=False)
            arms.update(result.coverage)
            counts[result.status] += 1
            if result.failure is not None:
                found = expected if item.failing_parent else failures
                found.add(result.failure.signature)
    pct = f" ({100.0 * len(arms) / total:.1f}%)" if total else ""
    click.echo(f"replayed {sum(counts.values())} inputs from {directory}")
    click.echo("outcomes: " + ", ".join(f"{s.name} {n}" for s, n in counts.items()))
    click.echo(f"branches: {len(arms)}/{total}{pct}")
    if unreadable:
        click.echo(f"skipped {len(unreadable)} unreadable inputs (listed on stderr)")
    for signature in sorted(failures):
        click.echo(f"failure: {signature}")
    for signature in sorted(expected - failures):
        click.echo(f"failure of a failing parent (expected, in failures/): {signature}")
    ctx.exit(int(ExitCode.FAILURES_FOUND if failures else ExitCode.OK))
