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
    default=Path("out"),
    show_default=True,
    help="Output directory (corpus/, failures/, stats.json); resumed when it exists.",
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
@click.option("--quiet", is_flag=True, help="Print only the final summary.")
@click.pass_context
def fuzz(
    ctx: click.Context,
    config: Path,
    out_dir: Path,
    function_name: str | None,
    junit_path: Path | None,
    sarif_path: Path | None,
    quiet: bool,
    **campaign: Any,
) -> None:
    """Fuzz a Lambda handler described by CONFIG (default: ./lambdafuzz.yaml).

    Without --execs or --time a campaign runs for 60 seconds.  A template without
    --function has each of its functions fuzzed in turn, into OUT/<logical id>/.

    Exit status: 0 nothing failed, 1 failures found, 2 usage or configuration error.
    """
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.report.status import summary

    if campaign["max_execs"] is None and campaign["max_seconds"] is None:
        campaign["max_seconds"] = 60.0
    exit_code = ExitCode.OK
    for target, function, sub_out in _campaigns(config, function_name, out_dir):
        engine = build_engine(target, out_dir=sub_out, function=function, **campaign)
        finished = _run(engine, quiet)
        click.echo(summary(finished))
        if junit_path or sarif_path:
            from lambdafuzz.report.ci_outputs import write_junit, write_sarif

            if junit_path:
                write_junit(sub_out, _suffixed(junit_path, sub_out, out_dir), target)
            if sarif_path:
                write_sarif(sub_out, _suffixed(sarif_path, sub_out, out_dir), target)
        if finished.stats.unique_failures:
            exit_code = ExitCode.FAILURES_FOUND
    ctx.exit(exit_code)


def _campaigns(
    config: Path, function_name: str | None, out_dir: Path
) -> list[tuple[Target, str | None, Path]]:
    """(target, template function, out dir) of each campaign to run: one for a config or a
    template's --function, one per function in OUT/<logical id>/ for a template without.
    Every target is loaded before the first campaign starts."""
    from lambdafuzz.config.sam import template_function_names
    from lambdafuzz.config.sam_template import is_template

    if function_name is None and config.is_file() and is_template(config):
        with config_errors_as_usage():
            names = template_function_names(config)
        return [(target_from_options(config, name), name, out_dir / name) for name in names]
    return [(target_from_options(config, function_name), function_name, out_dir)]


def _suffixed(path: Path, sub_out: Path, out_dir: Path) -> Path:
    if sub_out == out_dir:
        return path
    return path.with_name(f"{path.stem}-{sub_out.name}{path.suffix}")


def _run(engine, quiet: bool):
    from lambdafuzz.fuzzer.engine import CampaignFinished, StopReason
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
    except CorpusError as exc:  # an out dir it cannot resume in
        raise click.UsageError(str(exc)) from None
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    assert finished is not None
    return finished
