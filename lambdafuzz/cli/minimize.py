"""`lambdafuzz minimize`: shrink a saved failure while the same failure reproduces."""

from __future__ import annotations

from pathlib import Path

import click

from lambdafuzz.cli.options import backend_options, config_option, function_option, variant_option
from lambdafuzz.cli.saved_inputs import campaign_for, load_variant, start
from lambdafuzz.model.emulation import BackendKind


@click.command(
    epilog="Example: lambdafuzz minimize out/failures/KeyError-at-app-py-12-0badc0de.json"
)
@click.argument("input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@config_option
@function_option
@backend_options
@click.option(
    "--max-attempts",
    type=click.IntRange(min=1),
    default=400,
    show_default=True,
    help="Replays to spend at most.",
)
@click.option(
    "--time",
    "max_seconds",
    type=click.FloatRange(min=1),
    default=120.0,
    show_default=True,
    help="Seconds to spend at most.",
)
@variant_option
def minimize(
    input_file: Path,
    config: Path | None,
    function_name: str | None,
    backend: BackendKind,
    endpoint: str | None,
    max_attempts: int,
    max_seconds: float,
    variant: str | None,
) -> None:
    """Shrink a failing input while the same failure reproduces; writes NAME.min.json beside it.

    A bug's file (failures/) is shrunk from its smallest variant; --variant names another
    (written as NAME.VARIANT.min.json)."""
    from lambdafuzz.fuzzer.corpus import SavedInput
    from lambdafuzz.fuzzer.failures import FailureRecord
    from lambdafuzz.fuzzer.minimize import minimize as shrink
    from lambdafuzz.fuzzer.out_dir import MIN_SUFFIX, OutDir, minimized_path

    if input_file.name.endswith(MIN_SUFFIX):
        raise click.UsageError(
            f"{input_file} is already a minimized input; minimize the failure it was made "
            f"from ({input_file.name.removesuffix(MIN_SUFFIX)}.json)"
        )
    saved, variant = load_variant(input_file, variant)
    campaign = campaign_for(input_file, config, function_name, backend, endpoint)
    replayer = campaign.replayer

    def run(prefix):
        result = replayer.run(
            prefix, saved.seed, saved.mode, want_event=False, deliveries=saved.deliveries
        )
        signature = result.failure.signature if result.failure is not None else None
        return signature, result.recording

    with replayer:
        start(replayer)
        original = replayer.replay(saved, want_event=False)
        if original.failure is None:
            raise click.UsageError(f"{input_file} does not fail any more; nothing to minimize")
        signature = original.failure.signature
        outcome = shrink(
            saved.sequence,
            signature,
            run,
            saved.mode,
            max_attempts=max_attempts,
            max_seconds=max_seconds,
        )
        final = replayer.run(
            outcome.sequence.prefix(saved.mode),
            saved.seed,
            saved.mode,
            want_event=True,
            deliveries=saved.deliveries,  # a failure of the second delivery needs it
        )
    if final.failure is None or final.failure.signature != signature:
        raise click.ClickException(
            "the minimized input no longer reproduces; kept the original only"
        )
    earlier = FailureRecord.from_json(saved.failure or {}, input_file.name, saved.outcome)
    record = FailureRecord(
        signature=signature,
        info=final.failure,
        status=final.status.name,
        file_name=minimized_path(input_file, variant).name,
        first_exec=earlier.first_exec,
        first_time_s=earlier.first_time_s,
    )
    minimized = SavedInput(
        name=minimized_path(input_file, variant).name.removesuffix(".json"),
        sequence=final.recording,
        seed=saved.seed,
        mode=saved.mode,
        outcome=final.status.name,
        provenance=f"minimized:{input_file.name}",
        world=replayer.summarize(final.recording),
        event=final.event,
        failure=record.to_json(),
    )
    folder = campaign.directory.path if campaign.directory is not None else input_file.parent
    out = OutDir(folder).save_minimized(input_file, minimized, variant)
    click.echo(
        f"minimized {input_file.name}: {outcome.before[0]} -> {outcome.after[0]} draws, "
        f"size {outcome.before[1]} -> {outcome.after[1]} "
        f"({outcome.attempts} replays, {outcome.accepted} accepted)"
    )
    click.echo(f"same failure: {signature}")
    click.echo(f"wrote {out}")
