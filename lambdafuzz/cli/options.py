"""Command-line options shared by several commands, each defined once and stacked on every
command that uses it.

The choices of a choice option come from the enum that owns them (`EnumChoice`), imported
only when click first needs them (to parse, complete or print a command's help), so that
listing the commands with `lambdafuzz --help` imports none of the modules behind them.
Nothing here may import boto3, moto or pydantic.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.redelivery import REDELIVERY_SHARE

if TYPE_CHECKING:
    from lambdafuzz.model.target import Target

DecoratorT = Callable[[Callable[..., Any]], Callable[..., Any]]


class EnumChoice(click.Choice):
    """A choice among the values of an enum, named "module:attribute" and imported when
    the choices are first needed; the option's value is the enum member."""

    def __init__(self, enum_ref: str) -> None:
        # not click.Choice.__init__: it would read the choices now
        self.enum_ref = enum_ref
        self.case_sensitive = True

    @functools.cached_property
    def choices(self) -> tuple[enum.Enum, ...]:
        module, attr = self.enum_ref.split(":")
        return tuple(getattr(importlib.import_module(module), attr))

    def normalize_choice(self, choice: object, ctx: click.Context | None) -> str:
        # click matches an enum member by name; the command line spells its value
        value = choice.value if isinstance(choice, enum.Enum) else choice
        return super().normalize_choice(value, ctx)


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
        show_default=True,
        help="The target's config (default: the one the campaign's campaign.json records).",
    )(fn)


def function_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--function: which function of a SAM/CloudFormation template; with it
    --parameter-overrides, the template's parameter values (every command that takes a
    template takes both)."""
    fn = click.option(
        "--parameter-overrides",
        multiple=True,
        expose_value=False,
        callback=_use_parameter_overrides,
        metavar="'KEY=VALUE ...'",
        help="With a template: parameter values, as `sam deploy` takes them (over "
        "samconfig.toml's parameter_overrides and the Defaults).",
    )(fn)
    return click.option(
        "--function",
        "function_name",
        default=None,
        show_default=True,
        help="With a SAM/CloudFormation template: the logical id of the function to use.",
    )(fn)


def variant_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--variant`: which variant of a saved bug (`failures/NAME.json`) to use."""
    return click.option(
        "--variant",
        default=None,
        metavar="NAME",
        help="Of a bug's file, the variant to use (its name such as v2, its number, or "
        "its signature); default: the bug's smallest variant.",
    )(fn)


def _use_parameter_overrides(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> None:
    """Parse --parameter-overrides and make them the templates' for this command."""
    from lambdafuzz.config.samconfig import overriding, parse_overrides

    pairs: dict[str, str] = {}
    for value in values:
        try:
            pairs.update(parse_overrides(value))
        except ConfigError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    if pairs:
        ctx.with_resource(overriding(pairs))


def _check_endpoint(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from lambdafuzz.errors import SafetyError
    from lambdafuzz.harness.sandbox.safety import check_endpoint

    try:
        check_endpoint(value)
    except SafetyError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc
    return value


def backend_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--backend and --endpoint: the AWS emulator a command runs the handler against."""
    fn = click.option(
        "--endpoint",
        default=None,
        show_default=True,
        callback=_check_endpoint,
        help="Emulator endpoint URL (loopback only) for moto-server or localstack.",
    )(fn)
    return click.option(
        "--backend",
        type=EnumChoice("lambdafuzz.model.emulation:BackendKind"),
        default="moto",
        show_default=True,
        help="Which AWS emulator holds the generated world.",
    )(fn)


def sample_options(what: str, *, default_count: int, out_help: str) -> DecoratorT:
    """--count, --seed, --out and --edge-values for the `sample` commands that write
    `what`s."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option(
            "--edge-values/--no-edge-values",
            "edge",
            default=False,
            show_default=True,
            help="Draw edge values as the default strategy's campaigns do "
            "(recorded in the output; a sample replays only with the same setting).",
        )(fn)
        fn = click.option(
            "--out",
            "-o",
            "out",
            type=click.Path(file_okay=False, writable=True, path_type=Path),
            required=True,
            help=out_help,
        )(fn)
        fn = click.option(
            "--seed",
            "-s",
            type=int,
            default=0,
            show_default=True,
            help=f"Seed; {what} i uses a seed derived from it and i.",
        )(fn)
        return click.option(
            "--count",
            "-n",
            type=click.IntRange(min=1),
            default=default_count,
            show_default=True,
            help=f"How many {what}s to write.",
        )(fn)

    return decorate


def sample_seed(seed: int, i: int) -> int:
    """The seed of the i-th sample written with --seed `seed`: distinct for every (seed, i)
    with i < 2**32."""
    return (seed << 32) + i


class SetupProblem(click.ClickException):
    """A bad config or a handler that cannot be set up: one `Error: ...` paragraph on
    stderr and exit status 2 (`ExitCode.USAGE`), without click's usage banner (the command
    line itself was fine) and never a traceback."""

    exit_code = ExitCode.USAGE


@contextlib.contextmanager
def config_errors_as_usage() -> Iterator[None]:
    """Turn a `ConfigError` raised inside (or an OS error reading the files behind it)
    into a `SetupProblem`: one message, exit 2."""
    try:
        yield
    except ConfigError as exc:
        raise SetupProblem(str(exc)) from exc
    except OSError as exc:  # a file vanished or became unreadable while it was read
        where = f"{exc.filename}: " if exc.filename else ""
        raise SetupProblem(f"{where}cannot be read ({exc.strerror or exc}).") from exc


def target_from_options(config: Path, function: str | None) -> Target:
    """The target CONFIG (and --function, for a template) describe, as a usage error when
    they describe none."""
    from lambdafuzz.config import load_target

    with config_errors_as_usage():
        return load_target(config, function)


#: Every option of `fuzz` that is a `CampaignOptions` field, under that field's name: a new
#: campaign option is a field there plus one entry here, and flows through `build_engine`,
#: `campaign.json` and replay without further edits.
_CAMPAIGN_OPTIONS: tuple[DecoratorT, ...] = (
    click.option(
        "--strategy",
        type=EnumChoice("lambdafuzz.fuzzer.options:Strategy"),
        default="frontier",
        show_default=True,
        help="How children are made.",
    ),
    click.option(
        "--seed",
        type=int,
        default=0,
        show_default=True,
        help="Campaign seed: same seed and --execs, same campaign.",
    ),
    click.option(
        "--execs",
        "max_execs",
        type=click.IntRange(min=1),
        default=None,
        help="Stop after this many executions.",
    ),
    click.option(
        "--time",
        "max_seconds",
        type=click.FloatRange(min=0.1),
        default=None,
        help="Stop after this many seconds.",
    ),
    click.option(
        "--workers",
        type=click.IntRange(min=1, max=64),
        default=1,
        show_default=True,
        help="Worker processes running tests in parallel (Ray actors with --ray).",
    ),
    click.option(
        "--ray",
        "ray",
        is_flag=False,
        flag_value="local",
        default=None,
        metavar="[ADDRESS]",
        help="Run the workers as Ray actors across a cluster: alone, start or join a local "
        "cluster (its logs in OUT/ray/); `auto`, HOST:PORT or ray://HOST:PORT: join that one.  "
        "A template's functions are then fuzzed concurrently.  Needs lambdafuzz[ray].",
    ),
    backend_options,
    click.option(
        "--aws-path",
        type=EnumChoice("lambdafuzz.model.emulation:AwsPath"),
        default="fast",
        show_default=True,
        help="With --backend moto: 'fast' answers hot S3/DynamoDB/SQS/SNS operations "
        "straight from moto and reuses boto3 clients; 'moto' sends every call through "
        "botocore's full HTTP path.",
    ),
    click.option(
        "--replay",
        "mode",
        type=EnumChoice("lambdafuzz.generators.core:ReplayMode"),
        default="linear",
        show_default=True,
        help="How a child's choice sequence is read: linearly (Zest) or by execution index.",
    ),
    click.option(
        "--seed-corpus",
        "seed_corpora",
        multiple=True,
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        help="Start from the inputs in this directory (repeatable): lambdafuzz saved inputs "
        "and sample events (*.json payloads, as `sam local generate-event` writes them).",
    ),
    click.option(
        "--memory-limit",
        "memory_limit_mb",
        type=click.IntRange(min=16),
        default=1024,
        show_default=True,
        help="Address-space headroom per worker, in MB.",
    ),
    click.option(
        "--objective",
        type=EnumChoice("lambdafuzz.fuzzer.options:Objective"),
        default="mixed",
        show_default=True,
        help="What inputs are kept for: coverage, cost (inputs that make the handler "
        "slower, chattier or hungrier), or mixed (coverage, plus --cost-share of the "
        "children from the cost queue).",
    ),
    click.option(
        "--cost-share",
        type=click.FloatRange(min=0.0, max=1.0),
        default=0.1,
        show_default=True,
        help="With --objective mixed: share of the children made from the cost queue.",
    ),
    click.option(
        "--duration-share",
        type=click.FloatRange(min=0.0, max=1.0, min_open=True),
        default=0.5,
        show_default=True,
        help="A run longer than this share of the function's timeout is a cost finding.",
    ),
    click.option(
        "--max-aws-calls",
        type=click.IntRange(min=0),
        default=100,
        show_default=True,
        help="AWS calls in one invocation past which it is a cost finding.",
    ),
    click.option(
        "--max-memory-mb",
        type=click.FloatRange(min=0.0, min_open=True),
        default=None,
        help="Peak memory growth in one invocation past which it is a cost finding "
        "(default: half the function's memory size).",
    ),
    click.option(
        "--fail-on-handled",
        is_flag=True,
        default=False,
        help="Exit with the failure status when the handler caught an exception raised by "
        "its own code (saved in handled/; by default a warning).",
    ),
    click.option(
        "--redelivery-share",
        type=click.FloatRange(0.0, 1.0),
        default=REDELIVERY_SHARE,
        show_default=True,
        help="Share of the tests of an S3, SNS, SQS, EventBridge or stream trigger that "
        "deliver their event twice, as AWS's at-least-once delivery does (the idempotency "
        "oracle; 0 turns the second deliveries off).",
    ),
    click.option(
        "--no-oracle",
        "oracles_off",
        type=EnumChoice("lambdafuzz.model.oracle:OracleKind"),
        multiple=True,
        help="Turn a deployment oracle off (repeatable): permissions (every AWS call checked "
        "against the function's IAM policy), idempotency (events delivered twice), batch "
        "(partial batch responses).",
    ),
)


def campaign_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Stack every campaign option on a command; they reach it as `CampaignOptions` names."""
    for option in reversed(_CAMPAIGN_OPTIONS):
        fn = option(fn)
    return fn
