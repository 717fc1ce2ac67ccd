"""`lambdafuzz init`: write a commented lambdafuzz.yaml from a SAM template or from answers
given as options, validated before it is written so the first `fuzz` does not fail on it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lambdafuzz.cli.options import EnumChoice, config_errors_as_usage, function_option
from lambdafuzz.errors import ConfigError

if TYPE_CHECKING:
    from lambdafuzz.model.target import Target, TriggerKind

EPILOG = """\b
Examples:
  lambdafuzz init --template template.yaml --function IngestFunction
  lambdafuzz init --handler app.handler.lambda_handler --trigger s3 --bucket uploads:csv,json \\
      --bucket reports --table inventory:sku:S:version:N --env TABLE_NAME=inventory
  lambdafuzz init --handler worker.handler --trigger sqs --queue jobs --out app/lambdafuzz.yaml
"""


# =========================================================================== option parsing
def _bucket(text: str) -> dict[str, Any]:
    name, _, formats = text.partition(":")
    spec: dict[str, Any] = {"name": name}
    if formats:
        spec["objects"] = {"min": 1, "max": 3, "formats": [f for f in formats.split(",") if f]}
    return spec


def _table(text: str) -> dict[str, Any]:
    from lambdafuzz.model.target import KEY_TYPES

    parts = text.split(":")
    if (
        len(parts) not in (3, 5)
        or any(not p for p in parts)
        or any(t.upper() not in KEY_TYPES for t in parts[2::2])
    ):
        raise click.BadParameter(
            f"{text!r}: expected NAME:HASH:TYPE or NAME:HASH:TYPE:RANGE:TYPE "
            f"(TYPE one of {', '.join(KEY_TYPES)})",
            param_hint="--table",
        )
    spec: dict[str, Any] = {
        "name": parts[0],
        "hash_key": {"name": parts[1], "type": parts[2].upper()},
    }
    if len(parts) == 5:
        spec["range_key"] = {"name": parts[3], "type": parts[4].upper()}
    spec["items"] = {"min": 0, "max": 3}
    return spec


def _env(pairs: Sequence[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"{pair!r}: expected NAME=VALUE", param_hint="--env")
        env[name] = value
    return env


def _from_options(
    handler: str | None,
    root: str,
    trigger: TriggerKind | None,
    source: str | None,
    body: str | None,
    buckets: Sequence[str],
    tables: Sequence[str],
    queues: Sequence[str],
    topics: Sequence[str],
) -> dict[str, Any]:
    if handler is None or trigger is None:
        raise click.UsageError(
            "give --template FILE (a SAM/CloudFormation template), or --handler and --trigger"
        )
    config: dict[str, Any] = {"handler": handler, "root": root, "trigger": {"kind": trigger}}
    resources = _resources(buckets, tables, queues, topics)
    _mark_source(config["trigger"], resources, source, body)
    config["resources"] = resources
    return config


def _resources(
    buckets: Sequence[str], tables: Sequence[str], queues: Sequence[str], topics: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    resources = {
        "buckets": [_bucket(b) for b in buckets],
        "tables": [_table(t) for t in tables],
        "queues": [{"name": q} for q in queues],
        "topics": [{"name": t} for t in topics],
    }
    return {k: v for k, v in resources.items() if v}


def _mark_source(
    trigger: dict[str, Any], resources: dict[str, Any], source: str | None, body: str | None
) -> None:
    """Give the event source what it needs: objects for a bucket, a stream for a table."""
    kind = trigger["kind"]
    if source is not None:
        trigger["source"] = source
    if body is not None:
        trigger["body"] = body
    if kind in ("s3", "s3-batch", "eventbridge") or body in ("s3-event", "eventbridge-s3"):
        buckets = resources.get("buckets", [])
        chosen = (
            next((b for b in buckets if b["name"] == source), None)
            if kind in ("s3", "s3-batch", "eventbridge")
            else None
        )
        chosen = (
            chosen
            or next((b for b in buckets if "objects" in b), None)
            or (buckets[0] if buckets else None)
        )
        if chosen is not None:
            chosen.setdefault("objects", {"min": 1, "max": 3, "formats": ["any"]})
    if kind == "dynamodb-stream":
        tables = resources.get("tables", [])
        chosen = next((t for t in tables if t["name"] == source), tables[0] if tables else None)
        if chosen is not None:
            chosen.setdefault("stream", "NEW_AND_OLD_IMAGES")


# =========================================================================== rendering
def _flow(value: Any) -> str:
    import yaml

    text = yaml.safe_dump(
        value, default_flow_style=True, sort_keys=False, width=10**6, allow_unicode=True
    )
    return text.removesuffix("\n...\n").strip()


def render_config(config: dict[str, Any], *, origin: str, unsupported: Sequence[str] = ()) -> str:
    """A lambdafuzz.yaml text for `config`, with a comment before each part."""
    from lambdafuzz.model.target import TriggerKind

    kinds = " | ".join(TriggerKind)
    out = [
        f"# lambdafuzz.yaml: written by `lambdafuzz init` {origin}.",
        "# Check it with:  lambdafuzz fuzz <this file> --execs 20",
        "",
        "# The Lambda handler (module.function), imported with `root` (relative to this file) on sys.path.",
        f"handler: {_flow(config['handler'])}",
        f"root: {_flow(config.get('root', '.'))}",
    ]
    if config.get("app_packages"):
        out += ["# Coverage and analysis scope: the application's own packages and modules."]
        out += [f"app_packages: {_flow(config['app_packages'])}"]
    if config.get("layers"):
        out += ["# Layer directories (relative to this file), on sys.path after root, in order."]
        out += [f"layers: {_flow(config['layers'])}"]
    out += [
        "",
        f"# What invokes the handler: {kinds};",
        "# `source` is the bucket / queue / topic / table that emits the events.",
        "trigger:",
        *(f"  {k}: {_flow(v)}" for k, v in config["trigger"].items()),
    ]
    if config.get("env"):
        out += [
            "",
            "# Environment variables; ${queues.NAME.url}, ${topics.NAME.arn}, ${tables.NAME.stream_arn}",
            "# and the like are filled in with the emulator's values.",
            "env:",
            *(f"  {k}: {_flow(v)}" for k, v in config["env"].items()),
        ]
    out += ["", "# Lambda limits: a test running longer than timeout_s counts as a hang."]
    out += [
        f"timeout_s: {_flow(config.get('timeout_s', 3))}",
        f"memory_mb: {_flow(config.get('memory_mb', 512))}",
    ]
    out += _render_resources(config.get("resources") or {})
    out += _render_outcomes(config.get("outcomes"))
    out += _render_permissions(config.get("permissions"))
    if config.get("seeds"):
        out += ["", "# Sample events (files or folders of *.json): the first inputs, then mutated."]
        out += [f"seeds: {_flow(config['seeds'])}"]
    out += [
        "",
        "# Extra strings for string draws (constants the handler compares against):",
        '# dictionary: ["account_id"]',
    ]
    if unsupported:
        out += ["", "# Not carried over (lambdafuzz does not model these):"]
        out += [f"#   - {line}" for line in unsupported]
    return "\n".join(out) + "\n"


def _render_resources(resources: dict[str, Any]) -> list[str]:
    from lambdafuzz.generators.files import FORMATS
    from lambdafuzz.model.target import KEY_TYPES

    out = ["", "# The AWS world generated for every test."]
    if not any(resources.values()):
        return [*out, "resources: {}"]
    out.append("resources:")
    notes = {
        "buckets": f"S3 buckets. `objects` are generated per test (formats: {', '.join(FORMATS)});\n"
        "  # a bucket without `objects` starts empty (an output bucket, never an event source).",
        "tables": f"DynamoDB tables: key schema ({' | '.join(KEY_TYPES)}), items generated per test, "
        "optional stream.",
        "queues": "SQS queues (the trigger's queue is filled with the event's messages).",
        "topics": "SNS topics the handler publishes to or is triggered by.",
        "secrets": "Secrets Manager secrets: a fixed `value`, or drawn per test (`generate_key`:\n"
        "  # the key of the JSON object `value` whose value is drawn).",
        "parameters": "SSM parameters: a fixed `value`, or drawn per test.",
    }
    for kind in ("buckets", "tables", "queues", "topics", "secrets", "parameters"):
        specs = resources.get(kind) or []
        if not specs:
            continue
        out += [f"  # {notes[kind]}", f"  {kind}:"]
        for spec in specs:
            first = True
            for key, value in spec.items():
                out.append(f"    {'- ' if first else '  '}{key}: {_flow(value)}")
                first = False
    return out


def _render_outcomes(outcomes: dict[str, Any] | None) -> list[str]:
    out = ["", "# Which results are rejections on purpose (invalid) and which are failures besides"]
    out += ["# uncaught exceptions; statuses are read from a returned dict's `statusCode`."]
    if not outcomes:
        return [
            *out,
            "# outcomes:",
            "#   invalid: {exceptions: [ValueError], status_codes: [400]}",
            "#   failure: {status_codes: [500]}",
        ]
    out.append("outcomes:")
    out += [f"  {k}: {_flow(v)}" for k, v in outcomes.items()]
    return out


def _render_permissions(permissions: dict[str, Any] | None) -> list[str]:
    """The function's IAM statements (a template's role), one statement per line."""
    if permissions is None:
        return []
    out = [
        "",
        "# The function's IAM statements, from the template: every AWS call the handler makes is",
    ]
    out += ["# checked against them (`permissions: false` turns the check off); `unknown` lists"]
    out += ["# grants whose statements lambdafuzz cannot know."]
    out.append("permissions:")
    out.append("  statements:")
    out += [f"    - {_flow(s)}" for s in permissions.get("statements", [])]
    out.append(f"  unknown: {_flow(list(permissions.get('unknown', [])))}")
    return out


# =========================================================================== command
@click.command(epilog=EPILOG)
@click.option(
    "--template",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A SAM/CloudFormation template to import the function from.",
)
@function_option
@click.option(
    "--handler",
    default=None,
    help="The handler as module.function (e.g. app.handler.lambda_handler).",
)
@click.option(
    "--root",
    default=None,
    help="Directory the handler is imported from, relative to the output file.  [default: .]",
)
@click.option(
    "--trigger",
    type=EnumChoice("lambdafuzz.model.target:TriggerKind"),
    default=None,
    help="What invokes the handler.",
)
@click.option(
    "--source",
    default=None,
    help="The bucket / queue / topic / table emitting the events (default: the first one).",
)
@click.option(
    "--body",
    default=None,
    help="sqs/sns/apigateway bodies: a file format, s3-event or eventbridge-s3.",
)
@click.option(
    "--bucket",
    "buckets",
    multiple=True,
    metavar="NAME[:FORMATS]",
    help="An S3 bucket; FORMATS (comma-separated) makes it hold generated objects (repeatable).",
)
@click.option(
    "--table",
    "tables",
    multiple=True,
    metavar="NAME:HASH:TYPE[:RANGE:TYPE]",
    help="A DynamoDB table with its key schema (repeatable).",
)
@click.option("--queue", "queues", multiple=True, metavar="NAME", help="An SQS queue (repeatable).")
@click.option("--topic", "topics", multiple=True, metavar="NAME", help="An SNS topic (repeatable).")
@click.option(
    "--env",
    "env_pairs",
    multiple=True,
    metavar="NAME=VALUE",
    help="An environment variable for the handler (repeatable).",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0.1, max=900),
    default=None,
    help="Seconds before a test counts as a hang.  [default: 3, or the template's]",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("lambdafuzz.yaml"),
    show_default=True,
    help="Where to write the configuration.",
)
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
def init(
    template: Path | None, function_name: str | None, out: Path, force: bool, **options: Any
) -> None:
    """Write a commented lambdafuzz.yaml from a SAM template or from the options given.

    Without --function, a template of several functions gets one file per function
    (OUT's name with -FUNCTION added); only configurations that load and whose handler
    imports are written, with one line saying why for each of the others."""
    outputs: dict[str | None, Path] = {function_name: out}
    if template is not None and function_name is None:
        fuzzable = _fuzzable(template)
        if len(fuzzable) > 1:
            outputs = {f: out.with_name(f"{out.stem}-{f}{out.suffix}") for f in fuzzable}
    for path in outputs.values():
        if path.exists() and not force:
            raise click.UsageError(f"{path} exists; pass --force to overwrite it")
    skipped: list[str] = []
    written = 0
    for name, path in outputs.items():
        try:
            _write_one(name, path, template=template, **options)  # options: _write_one's keywords
            written += 1
        except click.UsageError as exc:
            if len(outputs) == 1:
                raise
            skipped.append(f"skipped {name}: {' '.join(exc.message.split())}")
    for line in skipped:
        click.echo(line, err=True)
    if not written:
        raise click.UsageError(f"no configuration written ({len(skipped)} functions skipped)")
    shown = out if len(outputs) == 1 else out.with_name(f"{out.stem}-FUNCTION{out.suffix}")
    click.echo(f"next: lambdafuzz fuzz {shown} --time 60")


def _fuzzable(template: Path) -> tuple[str, ...]:
    from lambdafuzz.config.sam import template_functions

    with config_errors_as_usage():
        return template_functions(template).fuzzable


def _write_one(
    function_name: str | None,
    out: Path,
    *,
    template: Path | None,
    handler: str | None,
    root: str | None,
    trigger: TriggerKind | None,
    source: str | None,
    body: str | None,
    buckets: tuple[str, ...],
    tables: tuple[str, ...],
    queues: tuple[str, ...],
    topics: tuple[str, ...],
    env_pairs: tuple[str, ...],
    timeout_s: float | None,
) -> None:
    """Build, validate, import-check and write one configuration; UsageError: why not."""
    from lambdafuzz.config.schema import target_from_dict

    trigger_kind = trigger.value if trigger is not None else None  # plain str, for YAML
    unsupported: list[str] = []
    if template is not None:
        config, origin, unsupported = _from_template(template, function_name, out)
        if handler is not None:
            config["handler"] = handler
        if root is not None:
            config["root"] = root
        extra = _resources(buckets, tables, queues, topics)
        for kind, specs in extra.items():
            config.setdefault("resources", {}).setdefault(kind, []).extend(specs)
        if trigger_kind is not None or source is not None or body is not None:
            config["trigger"] = {"kind": trigger_kind or config["trigger"]["kind"]}
            _mark_source(config["trigger"], config.setdefault("resources", {}), source, body)
    else:
        config = _from_options(
            handler, root or ".", trigger_kind, source, body, buckets, tables, queues, topics
        )
        origin = "from command-line options"
    if env_pairs:
        config["env"] = {**config.get("env", {}), **_env(env_pairs)}
    if timeout_s is not None:
        config["timeout_s"] = int(timeout_s) if float(timeout_s).is_integer() else timeout_s
    try:
        target = target_from_dict(config, out.resolve())
    except ConfigError as exc:
        raise click.UsageError(f"the configuration would not load: {exc}") from exc
    problem = _import_problem(target)
    if problem is not None:
        raise click.UsageError(f"the handler does not import as `fuzz` imports it: {problem}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_config(config, origin=origin, unsupported=unsupported), encoding="utf-8")
    for line in unsupported:
        click.echo(f"warning [sam-unsupported]: {line}", err=True)
    click.echo(f"wrote {out} (handler {config['handler']}, trigger {config['trigger']['kind']})")


def _import_problem(target: Target) -> str | None:
    """Why the handler does not import in a worker as `fuzz` starts one (None: it does)."""
    from lambdafuzz.errors import BackendError, HandlerImportError
    from lambdafuzz.fuzzer.replay import Replayer

    try:
        with Replayer(target) as replayer:
            replayer.info  # noqa: B018 - starting the worker imports the handler
    except (HandlerImportError, BackendError) as exc:
        return " ".join(str(exc).split())
    return None


def _from_template(
    template: Path, function_name: str | None, out: Path
) -> tuple[dict[str, Any], str, list[str]]:
    import os

    from lambdafuzz.config.sam import template_config

    with config_errors_as_usage():
        name, config, unsupported = template_config(template, function_name)
    # root is relative to the template there, to the written file here
    code = (template.resolve().parent / config["root"]).resolve()
    config["root"] = Path(os.path.relpath(code, out.resolve().parent)).as_posix()
    for key in ("seeds", "layers"):  # sample events folder, layer directories: from the file
        config[key] = [
            Path(os.path.relpath(template.resolve().parent / p, out.resolve().parent)).as_posix()
            for p in config.get(key, ())
        ]
        if not config[key]:
            del config[key]
    return config, f"from {template.name} (function {name})", unsupported
