"""`lambdafuzz init`: a commented lambdafuzz.yaml that loads to the same target."""

from __future__ import annotations

import dataclasses
import os

from click.testing import CliRunner

from lambdafuzz.cli.init import init
from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template_target
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.sam_campaign import SAM_APP, TEMPLATE


def _fields(target):
    return {
        f.name: getattr(target, f.name)
        for f in dataclasses.fields(target)
        if f.name != "config_path"
    }


def test_init_from_template_round_trips(tmp_path):
    out = tmp_path / "cfg" / "lambdafuzz.yaml"
    args = ["--template", str(TEMPLATE), "--function", "IngestFunction", "--out", str(out)]
    result = CliRunner().invoke(init, args)
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stdout
    assert "warning [sam-unsupported]: Layers[0]: arn:aws:lambda:" in result.stderr
    text = out.read_text()
    assert text.startswith(
        "# lambdafuzz.yaml: written by `lambdafuzz init` from template.yaml (function IngestFunction)."
    )
    assert "# The Lambda handler" in text and "# S3 buckets." in text
    assert "#   - Layers[0]: arn:aws:lambda:" in text  # unsupported, kept as comments
    assert "Properties.Policies" not in text  # read into `permissions:`, not listed
    assert "permissions:\n  statements:\n" in text
    assert "root: ../" in text  # relative to the written file, not to the template
    written = load_config(out)
    assert _fields(written) == _fields(load_template_target(TEMPLATE, "IngestFunction"))


def test_init_from_options(tmp_path):
    src = SAM_APP / "src"
    out = tmp_path / "lambdafuzz.yaml"
    args = [
        "--handler", "inventory.ingest.handler",
        "--root", os.path.relpath(src, tmp_path),
        "--trigger", "s3",
        "--bucket", "uploads:csv,json",
        "--bucket", "reports",
        "--table", "inventory:sku:S:version:n",
        "--queue", "jobs",
        "--env", "TABLE_NAME=inventory",
        "--env", "JOBS_QUEUE_URL=${queues.jobs.url}",
        "--timeout", "4",
        "--out", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(init, args)
    assert result.exit_code == 0, result.output
    t = load_config(out)
    assert (t.handler_module, t.root) == ("inventory.ingest", src.resolve())
    assert (t.trigger.kind, t.trigger.source) == (
        TriggerKind.S3,
        "uploads",
    )  # the bucket with objects
    assert t.resources.bucket("uploads").objects.formats == ("csv", "json")
    assert t.resources.bucket("reports").objects is None
    schema = t.resources.table("inventory").key_schema
    assert (schema.range_name, schema.range_type) == ("version", "N")
    assert t.env["JOBS_QUEUE_URL"] == "${queues.jobs.url}"
    assert t.timeout_s == 4.0
    assert "# outcomes:" in out.read_text()  # a commented example when none are given


def test_init_stream_trigger_gives_the_table_a_stream(tmp_path):
    out = tmp_path / "lambdafuzz.yaml"
    root = os.path.relpath(SAM_APP / "src", tmp_path)
    args = ["--handler", "inventory.worker.handler", "--root", root, "--trigger", "dynamodb-stream"]
    args += ["--table", "orders:pk:N", "--env", "TABLE_NAME=orders", "--out", str(out)]
    result = CliRunner().invoke(init, args)
    assert result.exit_code == 0, result.output
    t = load_config(out)
    assert t.trigger.source == "orders"
    assert t.resources.table("orders").stream == "NEW_AND_OLD_IMAGES"


def test_init_refuses_to_overwrite(tmp_path):
    out = tmp_path / "lambdafuzz.yaml"
    out.write_text("keep me\n")
    result = CliRunner().invoke(
        init, ["--template", str(TEMPLATE), "--function", "WorkerFunction", "--out", str(out)]
    )
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "exists; pass --force" in result.output
    assert out.read_text() == "keep me\n"
    forced = CliRunner().invoke(
        init,
        ["--template", str(TEMPLATE), "--function", "WorkerFunction", "--out", str(out), "--force"],
    )
    assert forced.exit_code == 0, forced.output
    assert load_config(out).trigger.kind is TriggerKind.SQS


def test_init_usage_errors(tmp_path):
    out = str(tmp_path / "lambdafuzz.yaml")
    nothing = CliRunner().invoke(init, ["--out", out])
    assert nothing.exit_code == 2 and "give --template FILE" in nothing.output
    bad_table = CliRunner().invoke(
        init, ["--handler", "a.b", "--trigger", "s3", "--table", "t:pk", "--out", out]
    )
    assert bad_table.exit_code == 2 and "NAME:HASH:TYPE" in bad_table.output
    missing = CliRunner().invoke(
        init, ["--handler", "nope.handler", "--trigger", "apigateway", "--out", out]
    )
    assert missing.exit_code == 2
    assert "the configuration would not load" in missing.output and "nope" in missing.output
    assert not (tmp_path / "lambdafuzz.yaml").exists()  # nothing written on error


def test_init_from_a_template_keeps_secrets_and_parameters(tmp_path):
    """The report mailer's SAM template: its secret (a JSON template with a generated key)
    and parameters (one fixed list, one drawn) are written and load back the same."""
    mailer = SAM_APP.parents[1] / "fuzzer" / "report_mailer" / "template.yaml"
    out = tmp_path / "lambdafuzz.yaml"
    result = CliRunner().invoke(init, ["--template", str(mailer), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "# Secrets Manager secrets" in text and "# SSM parameters" in text
    from_template = load_template_target(mailer)
    written = load_config(out)
    assert written.resources.secrets == from_template.resources.secrets
    assert written.resources.parameters == from_template.resources.parameters
    assert dict(written.env) == dict(from_template.env)
