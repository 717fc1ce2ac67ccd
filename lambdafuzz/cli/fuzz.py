"""`lambdafuzz fuzz`: run a campaign against one handler."""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.options import (
    SetupProblem,
    campaign_options,
    config_argument,
    config_errors_as_usage,
    function_option,
    target_from_options,
)
from lambdafuzz.errors import BackendError, CorpusError, HandlerImportError, SafetyError

if TYPE_CHECKING:
    from lambdafuzz.model.target import Target


@click.command(
    epilog="""Examples:

\b
  lambdafuzz fuzz benchmarks/lambdas/gradebook --time 30
  lambdafuzz fuzz app/lambdafuzz.yaml --strategy spoton --execs 5000 --seed 7 --out out/
  lambdafuzz fuzz template.yaml --function ThumbnailFunction --workers 2
  lambdafuzz fuzz template.yaml --ray auto --workers 4 --time 3600
"""
)
@config_argument
@campaign_options
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output directory (corpus/, failures/, stats.json); resumed when it exists.  "
    "Default: out/, or out/FUNCTION/ with --function.",
)
@function_option
@click.option(
    "--junit",
    "junit_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the bugs found as a JUnit XML report (one testcase per bug).",
)
@click.option(
    "--sarif",
    "sarif_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the bugs found as a SARIF 2.1.0 log (one result per bug).",
)
@click.option(
    "--sarif-root",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Directory SARIF and JUnit paths are relative to (default: the git repository root).",
)
@click.option(
    "--quiet",
    is_flag=True,
    help="Print errors and the final summary only: no live status, warnings or notices.",
)
@click.pass_context
def fuzz(
    ctx: click.Context,
    config: Path,
    out_dir: Path | None,
    function_name: str | None,
    junit_path: Path | None,
    sarif_path: Path | None,
    sarif_root: Path | None,
    quiet: bool,
    **campaign: Any,
) -> None:
    """Fuzz a Lambda handler described by CONFIG (default: ./lambdafuzz.yaml).

    Without --execs or --time a campaign runs for 60 seconds.  A template without
    --function has each of its functions fuzzed in turn, into OUT/<logical id>/ (all at
    once with --ray, each its own campaign, with one combined summary).

    Exit status: 0 nothing failed, 1 failures or deployment findings (permissions,
    idempotency, batch) found (or, with --fail-on-handled, an exception the handler
    caught), 2 usage or configuration error,
    128 + the signal when interrupted (130 for Ctrl-C).
    """
    from lambdafuzz.config import resolve_config
    from lambdafuzz.config.overlay import default_function
    from lambdafuzz.config.samconfig import active_overrides
    from lambdafuzz.config.sample_events import with_samples
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.report.status import summary

    if quiet:  # the config loaders' warnings and notes too, for this command only
        ctx.with_resource(_logged_at(logging.ERROR))
    if campaign["max_execs"] is None and campaign["max_seconds"] is None:
        campaign["max_seconds"] = 60.0
    if function_name is None:  # a template overlay's `function:`, as if given
        with config_errors_as_usage():
            function_name = default_function(resolve_config(config))
    if out_dir is None:
        out_dir = Path("out") / function_name if function_name else Path("out")
    campaign["parameter_overrides"] = tuple(active_overrides().items())
    campaigns = _campaigns(config, function_name, out_dir)
    if campaign["seed_corpora"]:  # sample events (JSON) among lambdafuzz's saved inputs
        with config_errors_as_usage():
            campaigns = [
                (with_samples(t, campaign["seed_corpora"], function=f or ""), f, o)
                for t, f, o in campaigns
            ]
    reports = _Reports(junit_path, sarif_path, sarif_root, many=len(campaigns) > 1)
    if campaign["ray"] is not None:
        ctx.exit(_fuzz_on_ray(campaigns, out_dir, campaign, reports, quiet))
    exit_code = int(ExitCode.OK)
    for target, function, sub_out in campaigns:
        engine = build_engine(target, out_dir=sub_out, function=function, **campaign)
        finished = _run(engine, quiet)
        click.echo(summary(finished, target=target, function=function, warnings=not quiet))
        reports.write(finished, target, function, sub_out)
        if _failed(finished, campaign):
            exit_code = int(ExitCode.FAILURES_FOUND)
        stopped_by = _stop_signal(finished.stop_reason)
        if stopped_by is not None:  # interrupted: stop here, and say so as shells do
            ctx.exit(128 + stopped_by)
    ctx.exit(exit_code)


@contextlib.contextmanager
def _logged_at(level: int) -> Iterator[None]:
    """lambdafuzz's loggers (`warning [...]` lines of the config loaders) at `level` and
    above only, until the block ends."""
    logger = logging.getLogger("lambdafuzz")
    before = logger.level
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.setLevel(before)


def _failed(finished: Any, campaign: dict[str, Any]) -> bool:
    """Whether the campaign's exit status is the failure status: a unique failure, a
    deployment oracle's finding, or with --fail-on-handled an exception the application
    caught."""
    stats = finished.stats
    handled = campaign["fail_on_handled"] and stats.unique_handled
    return bool(stats.unique_failures or stats.findings or handled)


class _Reports:
    """The JUnit and SARIF files asked for, written after each campaign."""

    def __init__(
        self, junit: Path | None, sarif: Path | None, root: Path | None, *, many: bool
    ) -> None:
        self.junit, self.sarif, self.root, self.many = junit, sarif, root, many

    def write(self, finished: Any, target: Target, function: str | None, sub_out: Path) -> None:
        from lambdafuzz.report.ci_outputs import write_junit, write_sarif

        written = []
        if self.junit:
            path = _suffixed(self.junit, function, self.many)
            written.append(write_junit(sub_out, path, target, uri_base=self.root))
        if self.sarif:
            path = _suffixed(self.sarif, function, self.many)
            written.append(write_sarif(sub_out, path, target, uri_base=self.root))
        for path in written:
            click.echo(f"  wrote           {path}")


def _fuzz_on_ray(
    campaigns: list[tuple[Target, str | None, Path]],
    out_dir: Path,
    campaign: dict[str, Any],
    reports: _Reports,
    quiet: bool,
) -> int:
    """Every campaign at once, its workers Ray actors: one connection to the cluster, one
    thread per campaign in this process, one combined summary and exit status."""
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.out_dir import RAY_DIR, OutDir, OutDirError
    from lambdafuzz.harness.process import ray_pool
    from lambdafuzz.report.status import summary

    address = None if campaign["ray"] == "local" else campaign["ray"]
    try:  # ray/ is the first thing written; a symlink there would lead Ray's files away
        OutDir(out_dir).check_layout()
    except OutDirError as exc:
        raise SetupProblem(str(exc)) from None
    try:
        where = ray_pool.connect(
            address,
            out_dir / RAY_DIR,
            [t.root for t, _, _ in campaigns],
            actors=campaign["workers"] * len(campaigns),
        )
    except BackendError as exc:
        raise SetupProblem(str(exc)) from None
    try:
        if not quiet:
            click.echo(f"lambdafuzz: Ray cluster at {where}")
        engines = [
            (build_engine(t, out_dir=o, function=f, **campaign), t, f, o) for t, f, o in campaigns
        ]
        if len(engines) == 1:
            results = [_run(engines[0][0], quiet)]
        else:
            results = _run_concurrently([e for e, _, _, _ in engines])
    finally:
        ray_pool.disconnect()
    exit_code = int(ExitCode.OK)
    stopped = None
    for finished, (_, target, function, sub_out) in zip(results, engines, strict=True):
        click.echo(summary(finished, target=target, function=function, warnings=not quiet))
        reports.write(finished, target, function, sub_out)
        if _failed(finished, campaign):
            exit_code = int(ExitCode.FAILURES_FOUND)
        stopped = stopped or _stop_signal(finished.stop_reason)
    if len(results) > 1:
        click.echo(_combined(results, [f for _, _, f, _ in engines]))
    return 128 + stopped if stopped is not None else exit_code


def _combined(results: list[Any], functions: list[str | None]) -> str:
    """One line per function and the totals of a concurrent run."""
    from lambdafuzz.report.status import bugs_and_variants

    lines = [f"lambdafuzz: {len(results)} functions fuzzed concurrently on Ray"]
    for finished, function in zip(results, functions, strict=True):
        s = finished.stats
        lines.append(
            f"  {function or '-':<24} {s.execs} executions, "
            f"{bugs_and_variants(s.unique_failures, s.failure_variants)}, "
            f"{s.app_branches_covered}/{s.app_branches_total} branches "
            f"({finished.out_dir}/)"
        )
    failing = sum(1 for f in results if f.stats.unique_failures)
    lines.append(
        f"  total                    {sum(f.stats.execs for f in results)} executions; "
        f"{failing} of {len(results)} functions with failures"
    )
    return "\n".join(lines)


def _run_concurrently(engines: list[Any]) -> list[Any]:
    """Run the engines in threads of this process (they mostly wait for actors); Ctrl-C or
    SIGTERM stops them all.  Their finished events, in order; the first setup error of any
    is raised once all have stopped."""
    import threading

    from lambdafuzz.fuzzer.events import CampaignFinished, StopReason
    from lambdafuzz.report.status import follow

    reasons = {signal.SIGINT: StopReason.SIGINT, signal.SIGTERM: StopReason.SIGTERM}
    finished: list[Any] = [None] * len(engines)
    errors: list[BaseException] = []

    def stop(signum: int, _frame: Any) -> None:
        for engine in engines:
            engine.request_stop(reasons.get(signum, StopReason.INTERRUPTED))

    def one(index: int) -> None:
        try:
            for event in follow(engines[index].run(), quiet=True):
                if isinstance(event, CampaignFinished):
                    finished[index] = event
        except BaseException as exc:  # noqa: BLE001 - reported once all have stopped
            errors.append(exc)
            stop(signal.SIGTERM, None)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(engines))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)  # the main thread stays free to take signals
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if errors:
        _raise_setup(errors[0])
    return finished


def _raise_setup(exc: BaseException) -> None:
    """A campaign's error as `_run` reports it."""
    from lambdafuzz.fuzzer.out_dir import OutDirError

    if isinstance(exc, HandlerImportError | BackendError | SafetyError | OutDirError):
        raise SetupProblem(str(exc)) from None
    if isinstance(exc, CorpusError):
        raise click.UsageError(str(exc)) from None
    raise exc


def _campaigns(
    config: Path, function_name: str | None, out_dir: Path
) -> list[tuple[Target, str | None, Path]]:
    """(target, template function, out dir) of each campaign to run: one for a config or a
    template's --function, one per function in OUT/<logical id>/ for a template without.
    Every target is loaded before the first campaign starts."""
    from lambdafuzz.config import resolve_config
    from lambdafuzz.config.sam import template_function_names
    from lambdafuzz.config.sam_template import is_template

    with config_errors_as_usage():  # a cdk.out of several stacks names them
        config = resolve_config(config)
    if function_name is None and config.is_file() and is_template(config):
        with config_errors_as_usage():
            names = template_function_names(config)
        for name in names:  # lambdafuzz makes these: a symlink would lead writes away
            if (out_dir / name).is_symlink():
                raise click.UsageError(
                    f"{out_dir / name}: expected the campaign folder of function {name} "
                    "(a directory lambdafuzz makes), found a symlink; move it away"
                )
        return [(target_from_options(config, name), name, out_dir / name) for name in names]
    return [(target_from_options(config, function_name), function_name, out_dir)]


def _stop_signal(reason: Any) -> int | None:
    """The signal that stopped a campaign (SIGINT, SIGTERM), if one did."""
    from lambdafuzz.fuzzer.events import StopReason

    signals = {StopReason.SIGINT: signal.SIGINT, StopReason.SIGTERM: signal.SIGTERM}
    stopped_by = signals.get(reason)
    return int(stopped_by) if stopped_by is not None else None


def _suffixed(path: Path, function: str | None, many: bool) -> Path:
    """The report file of one campaign: as given, or `NAME-Function.EXT` when one command
    runs several functions of a template."""
    if not many or function is None:
        return path
    return path.with_name(f"{path.stem}-{function}{path.suffix}")


def _run(engine, quiet: bool):
    """The campaign, to its end.  Ctrl-C (`cli/interrupt.py`): before its tests start (the
    out dir's lock, a resume's loading, the workers' start) it stops where it is; once they
    run, after the tests in flight, as a budget ends."""
    from lambdafuzz.cli import interrupt
    from lambdafuzz.fuzzer.events import CampaignFinished, CampaignStarted, StopReason
    from lambdafuzz.fuzzer.out_dir import OutDirError
    from lambdafuzz.report.status import follow

    def stop(_signum: int, _frame: Any) -> None:
        engine.request_stop(StopReason.SIGTERM)

    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, stop)}
    finished = None
    events = engine.run()
    try:
        with contextlib.ExitStack() as graceful:
            for event in follow(events, quiet=quiet):
                if isinstance(event, CampaignStarted):
                    graceful.enter_context(
                        interrupt.graceful(lambda: engine.request_stop(StopReason.SIGINT))
                    )
                elif isinstance(event, CampaignFinished):
                    finished = event
                    graceful.close()
    except (HandlerImportError, BackendError, SafetyError) as exc:  # cannot set the handler up
        raise SetupProblem(str(exc)) from None
    except OutDirError as exc:  # another target's out dir, or a campaign running in it
        raise SetupProblem(str(exc)) from None
    except CorpusError as exc:  # an out dir it cannot resume in
        raise click.UsageError(str(exc)) from None
    finally:
        events.close()  # interrupted: its workers killed, its stats written, its lock released
        for s, handler in previous.items():
            signal.signal(s, handler)
    assert finished is not None
    return finished
