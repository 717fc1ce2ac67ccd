"""`lambdafuzz fuzz`: run a campaign against one handler."""

from __future__ import annotations

import signal
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
    help="Write unique failures as a JUnit XML report.",
)
@click.option(
    "--sarif",
    "sarif_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write unique failures as a SARIF 2.1.0 log.",
)
@click.option(
    "--sarif-root",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Directory SARIF and JUnit paths are relative to (default: the git repository root).",
)
@click.option("--quiet", is_flag=True, help="Print only the final summary.")
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
    --function has each of its functions fuzzed in turn, into OUT/<logical id>/.

    Exit status: 0 nothing failed, 1 failures found, 2 usage or configuration error,
    128 + the signal when interrupted (130 for Ctrl-C).
    """
    from lambdafuzz.config.samconfig import active_overrides
    from lambdafuzz.config.sample_events import with_samples
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.report.status import summary

    if campaign["max_execs"] is None and campaign["max_seconds"] is None:
        campaign["max_seconds"] = 60.0
    if out_dir is None:
        out_dir = Path("out") / function_name if function_name else Path("out")
    exit_code = int(ExitCode.OK)
    campaign["parameter_overrides"] = tuple(active_overrides().items())
    campaigns = _campaigns(config, function_name, out_dir)
    for target, function, sub_out in campaigns:
        if campaign["seed_corpora"]:  # sample events (JSON) among lambdafuzz's saved inputs
            with config_errors_as_usage():
                target = with_samples(target, campaign["seed_corpora"], function=function or "")
        engine = build_engine(target, out_dir=sub_out, function=function, **campaign)
        finished = _run(engine, quiet)
        click.echo(summary(finished))
        written = []
        if junit_path or sarif_path:
            from lambdafuzz.report.ci_outputs import write_junit, write_sarif

            many = len(campaigns) > 1
            if junit_path:
                path = _suffixed(junit_path, function, many)
                written.append(write_junit(sub_out, path, target, uri_base=sarif_root))
            if sarif_path:
                path = _suffixed(sarif_path, function, many)
                written.append(write_sarif(sub_out, path, target, uri_base=sarif_root))
        for path in written:
            click.echo(f"  wrote           {path}")
        if finished.stats.unique_failures:
            exit_code = int(ExitCode.FAILURES_FOUND)
        stopped_by = _stop_signal(finished.stop_reason)
        if stopped_by is not None:  # interrupted: stop here, and say so as shells do
            ctx.exit(128 + stopped_by)
    ctx.exit(exit_code)


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
        return [(target_from_options(config, name), name, out_dir / name) for name in names]
    return [(target_from_options(config, function_name), function_name, out_dir)]


def _stop_signal(reason: Any) -> int | None:
    """The signal that stopped a campaign (SIGINT, SIGTERM), if one did."""
    from lambdafuzz.fuzzer.engine import StopReason

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
    from lambdafuzz.fuzzer.engine import CampaignFinished, StopReason
    from lambdafuzz.fuzzer.out_dir import OutDirError
    from lambdafuzz.report.status import follow

    reasons = {signal.SIGINT: StopReason.SIGINT, signal.SIGTERM: StopReason.SIGTERM}

    def stop(signum: int, _frame: Any) -> None:
        engine.request_stop(reasons.get(signum, StopReason.INTERRUPTED))

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    finished = None
    try:
        for event in follow(engine.run(), quiet=quiet):
            if isinstance(event, CampaignFinished):
                finished = event
    except (HandlerImportError, BackendError, SafetyError) as exc:  # cannot set the handler up
        raise SetupProblem(str(exc)) from None
    except OutDirError as exc:  # another target's out dir, or a campaign running in it
        raise SetupProblem(str(exc)) from None
    except CorpusError as exc:  # an out dir it cannot resume in
        raise click.UsageError(str(exc)) from None
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    assert finished is not None
    return finished
