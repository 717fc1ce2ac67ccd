"""`lambdafuzz repro`, `minimize` and `corpus replay`: running saved inputs again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.fuzz import backend_options, config_option, function_option, load_target
from lambdafuzz.errors import CorpusError, HandlerImportError


def _target_for(input_path: Path, config: Path | None, function_name: str | None):
    """The target a saved input belongs to: from --config, or from the campaign.json of the
    out/ directory holding it (which also tells a template's function)."""
    if config is not None:
        return load_target(config, function_name)
    from lambdafuzz.errors import ConfigError
    from lambdafuzz.fuzzer.out_dir import campaign_target, read_campaign_dir

    for parent in [input_path.parent, *input_path.parents]:
        if (parent / "campaign.json").is_file():
            try:
                return campaign_target(read_campaign_dir(parent), function=function_name)
            except ConfigError as exc:
                raise click.UsageError(str(exc)) from exc
    raise click.UsageError(
        f"cannot tell which config {input_path} belongs to: pass --config "
        "(campaign.json was not found in its directory or above)"
    )


def _load(path: Path):
    from lambdafuzz.fuzzer.corpus import load_input

    try:
        return load_input(path)
    except CorpusError as exc:
        raise click.FileError(str(path), str(exc)) from exc


def _pool(target, backend: str, endpoint: str | None):
    from lambdafuzz.harness.worker import WorkerPool, WorkerSpec

    spec = WorkerSpec(
        target=target,
        backend=backend,
        endpoint=endpoint,
        dictionary=tuple(target.dictionary),
        dictionary_p=0.0,
    )
    try:
        return WorkerPool(spec, 1)
    except HandlerImportError as exc:
        raise click.UsageError(str(exc)) from exc


@click.command(
    epilog="Example: lambdafuzz repro out/failures/ZeroDivisionError-at-gradebook-handler-py-31-1a2b3c4d.json"
)
@click.argument("input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@config_option
@function_option
@backend_options
def repro(
    input_file: Path,
    config: Path | None,
    function_name: str | None,
    backend: str,
    endpoint: str | None,
) -> None:
    """Replay one saved input: print its world, event, outcome and traceback.

    Exit status 1 when it fails (FAILURE or HANG), 0 otherwise.
    """
    from lambdafuzz.fuzzer.world_summary import summarize_recording
    from lambdafuzz.harness.worker import TestRequest
    from lambdafuzz.model.outcome import Status

    saved = _load(input_file)
    target = _target_for(input_file, config, function_name)
    pool = _pool(target, backend, endpoint)
    try:
        request = TestRequest(
            saved.sequence.prefix(saved.mode), saved.seed, saved.mode, want_event=True
        )
        result = pool.workers[0].run(request)
    finally:
        pool.close()
    click.echo("== world")
    click.echo(json.dumps(summarize_recording(result.recording, target), indent=1, default=repr))
    click.echo("== event")
    click.echo(json.dumps(result.event, indent=1, default=repr))
    click.echo(f"== outcome: {result.status.name}")
    if result.return_value:
        click.echo(f"returned: {result.return_value}")
    if result.failure is not None:
        click.echo(f"failure: {result.failure.signature}")
        click.echo(result.failure.traceback)
    sys.exit(int(ExitCode.FAILURES_FOUND if result.status >= Status.FAILURE else ExitCode.OK))


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
def minimize(
    input_file: Path,
    config: Path | None,
    function_name: str | None,
    backend: str,
    endpoint: str | None,
    max_attempts: int,
    max_seconds: float,
) -> None:
    """Shrink a failing input while the same failure reproduces; writes NAME.min.json beside it."""
    from lambdafuzz.fuzzer.corpus import SavedInput, save_input
    from lambdafuzz.fuzzer.minimize import minimize as shrink
    from lambdafuzz.fuzzer.world_summary import summarize_recording
    from lambdafuzz.harness.worker import TestRequest

    saved = _load(input_file)
    target = _target_for(input_file, config, function_name)
    pool = _pool(target, backend, endpoint)
    worker = pool.workers[0]

    def run(prefix):
        result = worker.run(TestRequest(prefix, saved.seed, saved.mode, want_event=True))
        signature = result.failure.signature if result.failure is not None else None
        run.last[signature] = result  # type: ignore[attr-defined]
        return signature, result.recording

    run.last = {}  # type: ignore[attr-defined]
    try:
        original, _ = run(saved.sequence.prefix(saved.mode))
        if original is None:
            raise click.UsageError(f"{input_file} does not fail any more; nothing to minimize")
        outcome = shrink(
            saved.sequence,
            original,
            run,
            saved.mode,
            max_attempts=max_attempts,
            max_seconds=max_seconds,
        )
        final = worker.run(
            TestRequest(
                outcome.sequence.prefix(saved.mode), saved.seed, saved.mode, want_event=True
            )
        )
    finally:
        pool.close()
    if final.failure is None or final.failure.signature != original:
        raise click.ClickException(
            "the minimized input no longer reproduces; kept the original only"
        )
    out = input_file.with_name(input_file.name.removesuffix(".json") + ".min.json")
    save_input(
        out,
        SavedInput(
            name=out.stem,
            sequence=final.recording,
            seed=saved.seed,
            mode=saved.mode,
            outcome=final.status.name,
            provenance=f"minimized:{input_file.name}",
            world=summarize_recording(final.recording, target),
            event=final.event,
            failure={"signature": original, "traceback": final.failure.traceback},
        ),
    )
    click.echo(
        f"minimized {input_file.name}: {outcome.before[0]} -> {outcome.after[0]} draws, "
        f"size {outcome.before[1]} -> {outcome.after[1]} ({outcome.attempts} replays, {outcome.accepted} accepted)"
    )
    click.echo(f"same failure: {original}")
    click.echo(f"wrote {out}")


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
def corpus_replay(
    directory: Path,
    config: Path | None,
    function_name: str | None,
    backend: str,
    endpoint: str | None,
) -> None:
    """Replay every input in DIRECTORY and print the branch coverage they reach."""
    from lambdafuzz.fuzzer.corpus import iter_inputs
    from lambdafuzz.harness.invoke import Status
    from lambdafuzz.harness.worker import TestRequest

    target = _target_for(directory / "x", config, function_name)
    items = list(iter_inputs(directory))
    pool = _pool(target, backend, endpoint)
    arms: set = set(pool.info.import_coverage)
    counts = {s: 0 for s in Status}
    failures: set[str] = set()
    try:
        for item in items:
            if isinstance(item, Exception):
                click.echo(f"warning [corpus-corrupt]: skipped {item}", err=True)
                continue
            result = pool.workers[0].run(
                TestRequest(item.sequence.prefix(item.mode), item.seed, item.mode)
            )
            arms.update(result.coverage)
            counts[result.status] += 1
            if result.failure is not None:
                failures.add(result.failure.signature)
    finally:
        total = pool.info.app_arms_total
        pool.close()
    pct = f" ({100.0 * len(arms) / total:.1f}%)" if total else ""
    click.echo(f"replayed {sum(counts.values())} inputs from {directory}")
    click.echo("outcomes: " + ", ".join(f"{s.name} {n}" for s, n in counts.items()))
    click.echo(f"branches: {len(arms)}/{total}{pct}")
    for signature in sorted(failures):
        click.echo(f"failure: {signature}")
    sys.exit(int(ExitCode.FAILURES_FOUND if failures else ExitCode.OK))
