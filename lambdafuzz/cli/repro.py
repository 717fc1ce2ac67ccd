"""`lambdafuzz repro`: replay one saved input and show what happened."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.options import (
    backend_options,
    config_option,
    function_option,
    variant_option,
)
from lambdafuzz.cli.saved_inputs import campaign_for, describe_bug, load_saved, start
from lambdafuzz.model.emulation import BackendKind

if TYPE_CHECKING:
    from lambdafuzz.fuzzer.corpus import SavedInput
    from lambdafuzz.fuzzer.replay import Replayer
    from lambdafuzz.harness.process.protocol import TestResult
    from lambdafuzz.model.cost import CostMeasures
    from lambdafuzz.model.oracle import OracleFinding
    from lambdafuzz.model.target import Target

#: Runs whose median `repro` shows for the noisy cost measures (duration, memory).
REPRO_COST_RUNS = 3


@click.command(
    epilog="Example: lambdafuzz repro out/failures/ZeroDivisionError-at-gradebook-handler-py-31-1a2b3c4d.json"
)
@click.argument("input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@config_option
@function_option
@backend_options
@click.option(
    "--export",
    "export_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write the input for AWS's tools into this folder: event.json, env.json "
    "(sam local invoke --env-vars), s3/<bucket>/<key>, dynamodb/ and sqs/ batches, README.txt.",
)
@click.option("--force", is_flag=True, help="With --export: write into a folder that is not empty.")
@variant_option
@click.pass_context
def repro(
    ctx: click.Context,
    input_file: Path,
    config: Path | None,
    function_name: str | None,
    backend: BackendKind,
    endpoint: str | None,
    export_dir: Path | None,
    force: bool,
    variant: str | None,
) -> None:
    """Replay one saved input: print its world, event, what the handler printed and
    logged, its outcome and traceback.

    A bug's file (failures/) replays its smallest variant; --variant names another.
    Exit status 1 when it fails (FAILURE or HANG) or a deployment oracle finds something
    (a call the role does not allow, ...), 0 otherwise (an exception the handler caught, as
    saved in handled/, is shown but does not fail).
    """
    from lambdafuzz.model.outcome import Status

    saved = load_saved(input_file, variant)
    campaign = campaign_for(input_file, config, function_name, backend, endpoint)
    replayer = campaign.replayer
    replayer.measure_cost = True
    with replayer:
        start(replayer)
        result = replayer.replay(saved)
        cost_runs = [result.cost] if result.cost is not None else []
        if cost_runs and result.status < Status.FAILURE:  # durations are noisy: a median
            for _ in range(REPRO_COST_RUNS - 1):
                again = replayer.replay(saved, want_event=False, want_log=False)
                if again.cost is not None:
                    cost_runs.append(again.cost)
    if export_dir is not None:
        meta = campaign.directory.meta if campaign.directory is not None else None
        function = function_name or (meta.function if meta is not None else None)
        _export(export_dir, replayer, result, function, force)
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
    if cost_runs:
        _echo_cost(saved, cost_runs)
    if result.failure is not None:
        failure = result.failure
        click.echo(f"failure: {failure.signature}")
        which = describe_bug(input_file, saved)
        if which is not None:
            click.echo(which)
        if result.world_inconsistency:
            click.echo(result.world_inconsistency)
        if failure.where not in failure.signature:  # a frame outside the application: its line
            click.echo(f"where: {failure.where}")
        click.echo(failure.traceback)
    _echo_handled(saved, result.handled)
    found = _echo_findings(saved, (*result.findings, *_batch_findings(replayer.target, result)))
    failed = result.status >= Status.FAILURE or found
    ctx.exit(int(ExitCode.FAILURES_FOUND if failed else ExitCode.OK))


def _export(
    directory: Path, replayer: Replayer, result: TestResult, function: str | None, force: bool
) -> None:
    """`--export`: the replayed event, its world and the handler's environment as files."""
    from lambdafuzz.model.target import resolve_env
    from lambdafuzz.model.world import LoadedWorld
    from lambdafuzz.report.export import ExportError, export_reproduction

    world = replayer.world(result.recording)
    env = resolve_env(replayer.target, LoadedWorld(world))
    try:
        written = export_reproduction(
            directory, event=result.event, world=world, env=env, function=function, force=force
        )
    except (ExportError, OSError) as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"== exported {len(written.files)} files to {written.path}/ (see README.txt)")


def _echo_handled(saved: SavedInput, handled: tuple[Any, ...]) -> None:
    """The exceptions the application caught in the replay (`harness.handled`): type,
    message, where raised and where caught, traceback; for an input saved in handled/,
    whether its exception was caught again."""
    from lambdafuzz.fuzzer.failures import FailureRecord

    record = FailureRecord.from_json(saved.failure or {}, saved.name, saved.outcome)
    expected = record.signature if record.handled else ""
    if not handled and not expected:
        return
    click.echo(f"== handled exceptions: {len(handled)} caught by the application")
    for caught in handled:
        info = caught.info
        click.echo(f"handled: {info.signature}")
        click.echo(f"  exception: {info.exception_type}: {info.message}")
        click.echo(f"  raised at: {info.where} ({caught.raised_in} code)")
        click.echo(f"  caught at: {caught.caught_at}")
        click.echo(info.traceback.rstrip("\n"))
    if expected and all(c.info.signature != expected for c in handled):
        shapes = {c.info.generalized().signature for c in handled}
        if record.info.generalized().signature not in shapes:
            click.echo(
                f"not caught again this time: {expected} (saved caught at {record.caught_at})"
            )


def _batch_findings(target: Target, result: TestResult) -> tuple[OracleFinding, ...]:
    """The batch oracle's findings of the replay (it reads the response the worker kept)
    and its notice, said here."""
    from lambdafuzz.fuzzer.batch_oracle import BatchOracle

    oracle = BatchOracle.of(target)
    if oracle is None:
        return ()
    findings, notice = oracle.check(result)
    if notice is not None:
        click.echo(f"notice: {notice}")
    return findings


def _echo_findings(saved: SavedInput, findings: tuple[OracleFinding, ...]) -> bool:
    """The deployment oracles' findings of the replay with their evidence; for an input
    saved as one, whether it was found again. True when the replay found any."""
    from lambdafuzz.fuzzer.failures import FailureRecord

    record = FailureRecord.from_json(saved.failure or {}, saved.name, saved.outcome)
    expected = record.signature if record.oracle else ""
    if not findings and not expected:
        return False
    click.echo(f"== deployment findings: {len(findings)}")
    for finding in findings:
        info = finding.info
        click.echo(f"{finding.kind.title}: {info.message}")
        click.echo(f"  at: {info.where}")
        click.echo("  " + finding.evidence.replace("\n", "\n  "))
        if info.traceback:
            click.echo(info.traceback.rstrip("\n"))
    if expected and all(f.info.signature != expected for f in findings):
        click.echo(f"not found again this time: {expected}")
    return bool(findings)


def _echo_cost(saved: SavedInput, runs: list[CostMeasures]) -> None:
    """The cost measures of the replay (noisy ones as the median of the runs), and the
    numbers the campaign saved when the input is a cost finding."""
    from lambdafuzz.fuzzer.cost import CostFinding, median_measures

    measures = median_measures(runs)
    median = f" (median of {len(runs)} runs)" if len(runs) > 1 else ""
    click.echo(f"cost{median}: {measures.describe()}")
    finding = CostFinding.from_json(saved.extra.get("cost"))
    if finding is not None:
        click.echo(f"cost finding when saved: {finding.headline()}")
