"""`lambdafuzz fuzz`: run a campaign against one handler."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.errors import ConfigError, HandlerImportError

STRATEGIES = ("random", "zest", "zest-strings", "spoton")
BACKENDS = ("moto", "moto-server", "localstack")


def config_argument(fn: Callable[..., Any]) -> Callable[..., Any]:
    """CONFIG: a lambdafuzz.yaml, a directory holding one, or a SAM/CloudFormation template."""
    return click.argument(
        "config", type=click.Path(exists=True, path_type=Path), default=Path(".")
    )(fn)


def config_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--config for commands that work on saved outputs rather than on a config."""
    return click.option(
        "--config",
        "config",
        type=click.Path(exists=True, path_type=Path),
        default=None,
        help="The target's config (default: the one the campaign's campaign.json records).",
    )(fn)


def backend_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option(
        "--endpoint",
        default=None,
        help="Emulator endpoint URL (loopback only) for moto-server or localstack.",
    )(fn)
    return click.option(
        "--backend",
        type=click.Choice(BACKENDS),
        default="moto",
        show_default=True,
        help="Which AWS emulator holds the generated world.",
    )(fn)


def function_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--function",
        "function_name",
        default=None,
        help="With a SAM/CloudFormation template: the logical id of the function to fuzz.",
    )(fn)


def load_target(config: Path, function_name: str | None = None):  # -> Target
    """Load a target from any supported config file, as a click error on failure."""
    from lambdafuzz.config import load_config

    try:
        if config.is_file() and _is_template(config):
            from lambdafuzz.config.sam import load_template_target

            return load_template_target(config, function_name)
        return load_config(config)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc


def _is_template(path: Path) -> bool:
    from lambdafuzz.config.sam_template import is_template

    return is_template(path)


@click.command(
    epilog="""Examples:

\b
  lambdafuzz fuzz benchmarks/lambdas/gradebook --time 30
  lambdafuzz fuzz app/lambdafuzz.yaml --strategy spoton --execs 5000 --seed 7 --out out/
  lambdafuzz fuzz template.yaml --function ThumbnailFunction --workers 2
"""
)
@config_argument
@click.option(
    "--strategy",
    type=click.Choice(STRATEGIES),
    default="zest",
    show_default=True,
    help="How children are made.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Campaign seed: same seed and --execs, same campaign.",
)
@click.option(
    "--execs",
    "max_execs",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many executions.",
)
@click.option(
    "--time",
    "max_seconds",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Stop after this many seconds.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("out"),
    show_default=True,
    help="Output directory (corpus/, failures/, stats.json); resumed when it exists.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=64),
    default=1,
    show_default=True,
    help="Worker processes running tests in parallel.",
)
@backend_options
@function_option
@click.option(
    "--replay",
    type=click.Choice(["ei", "linear"]),
    default="ei",
    show_default=True,
    help="How a child's choice sequence is read: by execution index or linearly (Zest).",
)
@click.option(
    "--seed-corpus",
    "seed_corpora",
    multiple=True,
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Start from the inputs in this corpus directory (repeatable).",
)
@click.option(
    "--memory-limit",
    "memory_limit_mb",
    type=click.IntRange(min=16),
    default=1024,
    show_default=True,
    help="Address-space headroom per worker, in MB.",
)
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
def fuzz(
    config: Path,
    strategy: str,
    seed: int,
    max_execs: int | None,
    max_seconds: float | None,
    out_dir: Path,
    workers: int,
    backend: str,
    endpoint: str | None,
    function_name: str | None,
    replay: str,
    seed_corpora: tuple[Path, ...],
    memory_limit_mb: int,
    junit_path: Path | None,
    sarif_path: Path | None,
    quiet: bool,
) -> None:
    """Fuzz a Lambda handler described by CONFIG (default: ./lambdafuzz.yaml).

    Without --execs or --time a campaign runs for 60 seconds.

    Exit status: 0 nothing failed, 1 failures found, 2 usage or configuration error.
    """
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.report.status import summary

    if max_execs is None and max_seconds is None:
        max_seconds = 60.0
    if endpoint is not None:
        from lambdafuzz.errors import SafetyError
        from lambdafuzz.harness.safety import check_endpoint

        try:
            check_endpoint(endpoint)
        except SafetyError as exc:
            raise click.BadParameter(str(exc), param_hint="--endpoint") from exc
    targets = _targets(config, function_name)
    exit_code = ExitCode.OK
    for target, sub_out in targets(out_dir):
        engine = build_engine(
            target,
            out_dir=sub_out,
            strategy=strategy,
            seed=seed,
            max_execs=max_execs,
            max_seconds=max_seconds,
            workers=workers,
            backend=backend,
            endpoint=endpoint,
            mode=ReplayMode.LINEAR if replay == "linear" else ReplayMode.EXECUTION_INDEXED,
            seed_corpora=seed_corpora,
            memory_limit_mb=memory_limit_mb,
            function=function_name or (sub_out.name if sub_out != out_dir else None),
        )
        finished = _run(engine, quiet)
        click.echo(summary(finished))
        if junit_path or sarif_path:
            from lambdafuzz.report.ci_outputs import write_junit, write_sarif

            if junit_path:
                write_junit(sub_out, _suffixed(junit_path, sub_out, out_dir))
            if sarif_path:
                write_sarif(sub_out, _suffixed(sarif_path, sub_out, out_dir), target)
        if finished.stats.unique_failures:
            exit_code = ExitCode.FAILURES_FOUND
    sys.exit(int(exit_code))


def _suffixed(path: Path, sub_out: Path, out_dir: Path) -> Path:
    if sub_out == out_dir:
        return path
    return path.with_name(f"{path.stem}-{sub_out.name}{path.suffix}")


def _targets(config: Path, function_name: str | None):
    """Yield (target, out dir) pairs: one for a config, one per function of a template."""
    if config.is_file() and _is_template(config) and function_name is None:
        from lambdafuzz.config.sam import template_function_names

        try:
            names = template_function_names(config)
        except ConfigError as exc:
            raise click.UsageError(str(exc)) from exc

        def each(out_dir: Path):
            for name in names:
                yield load_target(config, name), out_dir / name

        return each
    target = load_target(config, function_name)
    return lambda out_dir: iter([(target, out_dir)])


def _run(engine, quiet: bool):
    from lambdafuzz.fuzzer.engine import CampaignFinished
    from lambdafuzz.report.status import follow

    def stop(signum: int, _frame: Any) -> None:
        engine.request_stop(f"stopped by {signal.Signals(signum).name}")

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    finished = None
    try:
        for event in follow(engine.run(), quiet=quiet):
            if isinstance(event, CampaignFinished):
                finished = event
    except HandlerImportError as exc:
        raise click.UsageError(str(exc)) from exc
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    assert finished is not None
    return finished
