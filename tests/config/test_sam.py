"""SAM/CloudFormation templates as configuration: import, unsupported pieces, errors, and
fuzzing every function of a template without a lambdafuzz.yaml."""

from __future__ import annotations

import json
import logging
import re
import textwrap
from pathlib import Path

import pytest

from lambdafuzz.config.sam import (
    is_template,
    load_template,
    load_template_target,
    template_function_names,
    template_functions,
)
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.sam import template_text
from tests.fixtures.sam_campaign import EXECS, FUNCTIONS, SAM_APP, TEMPLATE


def write_app(tmp_path: Path, template: str, files: dict[str, str] | None = None) -> Path:
    """A template plus handler files under tmp_path."""
    for name, text in (
        files or {"src/app.py": "def handler(event, context):\n    return 1\n"}
    ).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    path = tmp_path / "template.yaml"
    path.write_text(textwrap.dedent(template))
    return path


# --------------------------------------------------------------------------- the test app
def test_template_lists_both_functions_in_order():
    assert is_template(TEMPLATE)
    assert template_function_names(TEMPLATE) == list(FUNCTIONS)


def test_s3_function_import():
    imported = load_template(TEMPLATE, "IngestFunction")
    t = imported.target
    assert (t.handler_module, t.handler_function) == ("inventory.ingest", "handler")  # dir/mod.fn
    assert t.root == (SAM_APP / "src").resolve()
    assert t.app_packages == ("inventory",)
    assert t.config_path == TEMPLATE.resolve()
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.S3, "lambdafuzz-uploads")  # !Sub
    uploads = t.resources.bucket("lambdafuzz-uploads")
    assert uploads.objects is not None
    assert (uploads.objects.min, uploads.objects.max, uploads.objects.formats) == (1, 3, ("any",))
    assert uploads.objects.prefixes == ("incoming/",)  # the S3 event's prefix filter
    assert (
        t.resources.bucket("reportsbucket").objects is None
    )  # output bucket: logical id lowercased
    schema = t.resources.table("inventory").key_schema
    assert (schema.hash_name, schema.hash_type, schema.range_name, schema.range_type) == (
        "sku",
        "S",
        "version",
        "N",
    )
    assert dict(t.env) == {
        "STAGE": "test",  # Globals, !Ref to a parameter's default
        "TABLE_NAME": "inventory",
        "JOBS_QUEUE_URL": "${queues.JobsQueue.url}",  # !Ref of a queue is its URL
        "REPORT_BUCKET": "reportsbucket",
    }
    assert (t.timeout_s, t.memory_mb) == (5.0, 256)  # from Globals
    assert any(u.startswith("Layers[0]: arn:aws:lambda:") for u in imported.unsupported)
    assert not any(u.startswith("Properties.Policies:") for u in imported.unsupported)
    # the role SAM creates: the basic execution role and the S3ReadPolicy of the bucket
    assert [s.source for s in t.permissions.statements] == [
        "managed AWSLambdaBasicExecutionRole",
        "Policies[0] S3ReadPolicy (BucketName: lambdafuzz-uploads)",
    ]
    assert t.permissions.statements[1].resources == (
        "arn:aws:s3:::lambdafuzz-uploads",
        "arn:aws:s3:::lambdafuzz-uploads/*",
    )
    assert t.permissions.unknown == ()


def test_sqs_function_import():
    imported = load_template(TEMPLATE, "WorkerFunction")
    t = imported.target
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.SQS, "JobsQueue")
    assert (t.trigger.records_min, t.trigger.records_max) == (1, 2)  # BatchSize
    assert t.env["ALERTS_TOPIC_ARN"] == "${topics.AlertsTopic.arn}"
    assert t.env["JOBS_QUEUE_ARN"] == "${queues.JobsQueue.arn}"  # !GetAtt Queue.Arn
    assert all(b.objects is None for b in t.resources.buckets)  # no bucket emits its events
    assert imported.unsupported == (
        "Events.Nightly: lambdafuzz fuzzes one trigger per function; using Events.Jobs "
        "(choose another in a lambdafuzz.yaml)",
        "Resources.InventoryTable: AWS::DynamoDB::Table properties not modelled (the emulated "
        "resource behaves as if they were absent): BillingMode",
        "Resources.JobsQueue: AWS::SQS::Queue properties not modelled (the emulated resource "
        "behaves as if they were absent): VisibilityTimeout",
    )


def test_unsupported_pieces_are_logged_as_warnings(caplog):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        load_template_target(TEMPLATE, "IngestFunction")
    messages = [r.getMessage() for r in caplog.records]
    assert any("warning [sam-unsupported]" in m and "Layers" in m for m in messages), messages
    assert not any("Policies" in m for m in messages), messages  # read, not unsupported


# --------------------------------------------------------------------------- more shapes
def test_streams_topics_api_and_intrinsics(tmp_path):
    path = write_app(tmp_path, template_text("sam", "streams_topics_api_intrinsics"))
    listing = template_functions(path)
    assert listing.fuzzable == ("StreamFn", "TopicFn", "ApiFn")
    assert listing.skipped == ("NodeFn: runtime nodejs20.x (lambdafuzz fuzzes Python handlers)",)

    stream = load_template(path, "StreamFn")
    t = stream.target
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.DYNAMODB_STREAM, "Orders")
    assert t.trigger.records_max == 5  # BatchSize 50 capped
    assert t.resources.table("Orders").stream == "NEW_IMAGE"
    users = t.resources.table("Users").key_schema
    assert (users.hash_name, users.hash_type) == ("user", "N")
    assert t.env["STREAM"] == "${tables.Orders.stream_arn}"
    assert t.env["TOPIC"] == "${topics.alerts.arn}"
    assert t.env["PATH_"] == "us-east-1/alerts"
    assert t.env["SUB"] == "Users-123456789012"
    assert t.env["IMPORTED"] == "imported"  # placeholder, and listed
    assert t.env["KEY"] == "Key"
    unsupported = "\n".join(stream.unsupported)
    assert "Environment.Variables.IMPORTED" in unsupported
    assert "Environment.Variables.KEY" in unsupported
    assert "Properties.VpcConfig" in unsupported
    assert "Resources.Key: type AWS::KMS::Key is not emulated" in unsupported

    topic = load_template(path, "TopicFn").target
    assert (topic.trigger.kind, topic.trigger.source) == (TriggerKind.SNS, "alerts")
    api = load_template(path, "ApiFn").target
    assert api.trigger.kind is TriggerKind.APIGATEWAY_V2
    assert 500 in api.outcomes.failure_status_codes and 404 in api.outcomes.invalid_status_codes


def test_plain_cloudformation_with_event_source_mapping(tmp_path):
    path = write_app(
        tmp_path, template_text("sam", "plain_cloudformation_event_source_mapping.json")
    )
    t = load_template_target(path)  # the only function
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.SQS, "jobs.fifo")
    assert t.resources.queue("jobs.fifo").fifo
    assert t.env["URL"] == "${queues.jobs.fifo.url}"


def test_s3_notifications_to_a_queue_become_s3_event_bodies(tmp_path):
    path = write_app(tmp_path, template_text("sam", "s3_notifications_to_a_queue"))
    t = load_template_target(path, "Fn")
    assert t.trigger.body == "s3-event"
    assert t.resources.bucket("inbox").objects is not None  # the notifying bucket gets objects


def test_eventbridge_rule_on_a_bucket(tmp_path):
    path = write_app(tmp_path, template_text("sam", "eventbridge_rule_on_a_bucket"))
    t = load_template_target(path, "Fn")
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.EVENTBRIDGE, "app-photos")
    assert t.resources.bucket("app-photos").objects is not None
    assert t.resources.bucket("app-logs").objects is None


# --------------------------------------------------------------------------- errors
def test_unknown_function_suggests_the_nearest(tmp_path):
    with pytest.raises(ConfigError, match=r"Did you mean 'IngestFunction'"):
        load_template(TEMPLATE, "IngestFunc")


def test_several_functions_need_a_name():
    with pytest.raises(
        ConfigError, match=r"2 functions \(IngestFunction, WorkerFunction\).*--function"
    ):
        load_template(TEMPLATE)


def test_missing_code_directory_points_at_its_line(tmp_path):
    path = write_app(tmp_path, template_text("sam", "missing_code_directory"))
    with pytest.raises(ConfigError) as info:
        load_template(path, "Fn")
    message = str(info.value)
    assert f"{path.resolve()}:6:" in message
    assert "Resources.Fn.Properties.CodeUri is 'nowhere/'" in message


def test_function_without_usable_events_is_not_fuzzable(tmp_path):
    path = write_app(tmp_path, template_text("sam", "schedule_v2_only"))
    with pytest.raises(ConfigError, match="no function lambdafuzz can fuzz"):
        template_function_names(path)


def test_a_template_without_resources_is_rejected(tmp_path):
    path = tmp_path / "template.yaml"
    path.write_text(template_text("sam", "no_resources"))
    with pytest.raises(ConfigError, match="no `Resources` mapping"):
        template_function_names(path)


def test_the_only_function_is_still_checked_for_being_fuzzable(tmp_path):
    path = write_app(
        tmp_path, template_text("sam", "one_sqs_function").replace("python3.12", "nodejs20.x")
    )
    with pytest.raises(ConfigError, match="a function lambdafuzz can fuzz, not runtime nodejs20.x"):
        load_template(path)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("!GetAtt Jobs.Arn", "!GetAttr Jobs.Arn", r":12:\d+: .*unknown tag !GetAttr.*Did you mean !GetAtt\?"),
        ("  Fn:\n", "  Jobs:\n", r":5: Resources.Jobs appears twice; expected each key once"),
        ("Runtime: python3.12", "Runtime: python3.12\n      Environment: 5", r":11: Resources.Fn.Properties.Environment is 5"),
        ("Runtime: python3.12", "Runtime: python3.12\n      Environment: {Variables: {AWS_PROFILE: prod}}", r":11: .*Variables.AWS_PROFILE is 'prod'; expected no AWS_PROFILE"),
        ("Runtime: python3.12", "Runtime: python3.12\n      Metadata: " + "[" * 100 + "]" * 100, r":11: .*nested more than 64 levels"),
    ],
    ids=["unknown-tag", "duplicate-resource", "environment-not-a-mapping", "env-profile", "deep"],
)  # fmt: skip
def test_malformed_template_points_at_the_line(tmp_path, old, new, expected):
    path = write_app(tmp_path, template_text("sam", "one_sqs_function").replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        load_template(path)
    assert str(path.resolve()) in str(info.value)
    assert re.search(expected, str(info.value)), str(info.value)


# --------------------------------------------------------------------------- fuzzing
@pytest.mark.slow
def test_fuzz_template_runs_every_function_without_a_lambdafuzz_yaml(sam_campaign):
    result = sam_campaign.result
    assert isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 1, result.output  # the planted bugs are failures
    assert not (SAM_APP / "lambdafuzz.yaml").exists()
    found = {}
    for function in FUNCTIONS:
        campaign = sam_campaign.campaign(function)
        stats = json.loads((campaign / "stats.json").read_text())
        assert stats["execs"] == EXECS
        assert stats["app_branches_covered"] > 0
        meta = json.loads((campaign / "campaign.json").read_text())
        assert (campaign / meta["config"]).resolve() == TEMPLATE.resolve()  # out-dir relative
        failures = [
            json.loads(p.read_text())["failure"] for p in (campaign / "failures").glob("*.json")
        ]
        found[function] = sorted({f["exception_type"] for f in failures})  # one bug each, in
        # as many failures as its message shapes differ (the exception's argument types)
        assert any((campaign / "corpus").glob("id-*.json"))
    assert found == {"IngestFunction": ["UnicodeDecodeError"], "WorkerFunction": ["AttributeError"]}
    assert result.output.count("budget exhausted after 30 executions") == 2


def test_a_sam_project_directory_is_fuzzed_from_its_template(tmp_path):
    """`lambdafuzz fuzz .` in a SAM project without a lambdafuzz.yaml: template.yaml, as
    `sam` finds it, every function in OUT/<function>/."""
    import shutil

    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli
    from lambdafuzz.config import load_target

    project = tmp_path / "project"
    shutil.copytree(SAM_APP, project)
    target = load_target(project, "WorkerFunction")
    assert target.config_path == project / "template.yaml"
    out = tmp_path / "out"
    args = ["fuzz", str(project), "--execs", "3", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    for function in FUNCTIONS:
        stats = json.loads((out / function / "stats.json").read_text())
        assert stats["execs"] == 3
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["fuzz", str(empty), "--execs", "1"])
    assert result.exit_code == 2
    assert "no lambdafuzz.yaml (nor a SAM template.yaml) in this directory" in result.output


def test_a_hyphenated_handler_module_is_imported_as_lambda_does(tmp_path):
    """Lambda's runtime imports `order-intake.handler` with importlib; so does lambdafuzz,
    and the module is in the coverage scope."""
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    code = (
        "def handler(event, context):\n"
        "    if event['Records'][0]['body'].startswith('{'):\n"
        "        return {'json': True}\n"
        "    return {'json': False}\n"
    )
    write_app(
        tmp_path, template_text("sam", "hyphenated_handler_module"), {"src/order-intake.py": code}
    )
    target = load_template(tmp_path / "template.yaml").target
    assert (target.handler_module, target.handler_function) == ("order-intake", "handler")
    assert target.app_packages == ("order-intake",)
    out = tmp_path / "out"
    # zest: frontier's edge values spend five executions elsewhere than on a body's '{'
    args = ["fuzz", str(tmp_path), "--execs", "5", "--out", str(out), "--strategy", "zest"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    stats = json.loads((out / "IntakeFunction" / "stats.json").read_text())
    assert stats["app_branches_covered"] >= 2


def test_local_layers_are_on_sys_path_as_in_opt_python(tmp_path, caplog):
    """A layer's python/ (the archive layout) or, built by `sam build`, its directory, go
    on sys.path after the function's code; a layer ARN is named as not provided."""
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    files = {
        "layers/shared/python/shared/__init__.py": "def parse(body):\n    return body.strip()\n",
        "layers/built/built_util.py": "LIMIT = 3\n",
        "src/app.py": "from built_util import LIMIT\n"
        "from shared import parse\n\n\n"
        "def handler(event, context):\n"
        "    bodies = [parse(r['body']) for r in event['Records']]\n"
        "    return {'long': sum(len(b) > LIMIT for b in bodies)}\n",
    }
    write_app(tmp_path, template_text("sam", "local_layers"), files)
    with caplog.at_level(logging.WARNING):
        target = load_template_target(tmp_path / "template.yaml", "WorkerFunction")
    assert target.layers == (
        tmp_path / "layers" / "shared" / "python",
        tmp_path / "layers" / "built",
    )
    assert "Layers[2]: arn:aws:lambda" in caplog.text and "SharedLayer" not in caplog.text
    out = tmp_path / "out"
    args = ["fuzz", str(tmp_path / "template.yaml"), "--execs", "5", "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "WorkerFunction" / "stats.json").read_text())["execs"] == 5


def test_a_local_layers_own_modules_are_application_code(tmp_path):
    """The team's modules in a local layer are covered and analysed as the application's
    (shared code holds most of the logic of functions that share it); the packages
    installed into a layer (`pip install -t`, with their `.dist-info`) are not."""
    from lambdafuzz.model.target import app_dirs

    files = {
        "layers/shared/python/shared/__init__.py": "def parse(body):\n    return body.strip()\n",
        "layers/shared/python/rules.py": "LIMIT = 3\n",
        "layers/shared/python/vendored/__init__.py": "",
        "layers/shared/python/vendored-1.0.dist-info/top_level.txt": "vendored\n",
        "layers/built/built_util.py": "LIMIT = 3\n",
        "src/app.py": "from built_util import LIMIT\n"
        "from shared import parse\n\n\n"
        "def handler(event, context):\n"
        "    return [parse(r['body']) for r in event['Records']]\n",
    }
    write_app(tmp_path, template_text("sam", "local_layers"), files)
    target = load_template_target(tmp_path / "template.yaml", "WorkerFunction")
    assert target.app_packages == ("app", "rules", "shared", "built_util")
    shared = tmp_path / "layers" / "shared" / "python"
    assert app_dirs(target) == [
        str(tmp_path / "src" / "app.py"),
        str(shared / "rules.py"),
        str(shared / "shared"),
        str(tmp_path / "layers" / "built" / "built_util.py"),
    ]


def test_a_layer_that_is_not_a_directory_is_a_config_error(tmp_path):
    (tmp_path / "app.py").write_text("def handler(event, context):\n    return None\n")
    (tmp_path / "lambdafuzz.yaml").write_text(
        "handler: app.handler\ntrigger: {kind: sqs, source: jobs}\nlayers: [layers/missing]\n"
        "resources:\n  queues: [{name: jobs}]\n"
    )
    from lambdafuzz.config import load_target

    with pytest.raises(ConfigError, match=r"layers\[0\] is 'layers/missing'.*layer directory"):
        load_target(tmp_path)


def test_inline_code_is_imported_as_index_like_lambda_does(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "template.yaml").write_text(template_text("sam", "inline_code"))
    target = load_template(tmp_path / "app" / "template.yaml").target
    assert (target.handler_module, target.app_packages) == ("index", ("index",))
    assert target.root.parent == tmp_path / "cache" / "lambdafuzz" / "inline"
    assert (target.root / "index.py").read_text().startswith("import json")
    assert sorted(p.name for p in (tmp_path / "app").iterdir()) == ["template.yaml"]
    again = load_template(tmp_path / "app" / "template.yaml").target
    assert again.root == target.root  # the same code, the same module path
    out = tmp_path / "out"
    args = ["fuzz", str(tmp_path / "app"), "--execs", "200", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output  # the planted KeyError
    failures = [p.name for p in (out / "GlueFunction" / "failures").glob("*.json")]
    assert any(name.startswith("KeyError-at-index-py") for name in failures), failures


def test_conditions_and_fn_if_are_evaluated_under_parameter_defaults(tmp_path):
    write_app(tmp_path, template_text("sam", "conditions"))
    imported = load_template(tmp_path / "template.yaml")
    env = dict(imported.target.env)
    assert {k: env[k] for k in ("MODE", "DEBUG", "EU", "EITHER")} == {
        "MODE": "strict",
        "DEBUG": "0",
        "EU": "prod-eu",
        "EITHER": "yes",
    }
    # a parameter without a default leaves its condition open: named, never guessed
    assert any(u.startswith("Environment.Variables.UNKNOWN") for u in imported.unsupported)


def test_samconfig_parameter_overrides_fill_the_parameters_as_sam_deploy_does(tmp_path):
    write_app(tmp_path, template_text("sam", "conditions"))
    (tmp_path / "samconfig.toml").write_text(
        'version = 0.1\n[default.global.parameters]\nparameter_overrides = "Region2=us-east-1 '
        'Unset=x"\n[default.deploy.parameters]\nstack_name = "app"\n'
        'parameter_overrides = \'Stage="dev" Region2="eu-west-1"\'\n'
    )
    env = dict(load_template(tmp_path / "template.yaml").target.env)
    # deploy's Stage=dev and Region2 win over global's; global's Unset=x still applies
    assert {k: env[k] for k in ("MODE", "DEBUG", "EU", "EITHER", "UNKNOWN")} == {
        "MODE": "lax",
        "DEBUG": "1",
        "EU": "other",
        "EITHER": "yes",
        "UNKNOWN": "a",
    }
    (tmp_path / "samconfig.toml").write_text(
        '[default.deploy.parameters]\nparameter_overrides = ["Stage=prod", "Region2"]\n'
    )
    with pytest.raises(ConfigError, match=r"samconfig.toml: .*'Region2'; expected Key=Value"):
        load_template(tmp_path / "template.yaml")
    (tmp_path / "samconfig.toml").write_text("[default.deploy\n")
    with pytest.raises(ConfigError, match=r"samconfig.toml: cannot be read as a samconfig"):
        load_template(tmp_path / "template.yaml")


REFUNDS = '''\
import os

import boto3

table = boto3.resource("dynamodb").Table(os.environ["TABLE"])


def handler(payload, context):
    """Called by a Step Functions state: {"order_id": ..., "amount": ..., "reason"?: ...}."""
    order_id = str(payload["order_id"])
    reason = payload.get("reason") or "unspecified"
    if "dry_run" in payload:
        return {"order_id": order_id, "dry_run": True}
    if payload["amount"] > 1000:  # planted: a non-number amount raises TypeError
        return {"order_id": order_id, "escalated": True}
    item = table.get_item(Key={"id": order_id}).get("Item")
    if item is None:
        return {"order_id": order_id, "refunded": False, "reason": reason}
    return {"order_id": order_id, "refunded": True}
'''


def test_a_function_without_events_is_fuzzed_with_the_payload_keys_it_reads(tmp_path):
    """Invoked directly (Step Functions, the SDK): every payload holds the top-level keys
    the handler reads, found in its source, in order."""
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    write_app(tmp_path, template_text("sam", "direct_invocation"), {"src/refunds.py": REFUNDS})
    target = load_template(tmp_path / "template.yaml").target
    assert target.trigger.kind is TriggerKind.DIRECT and target.trigger.source is None
    assert target.trigger.event_keys == ("order_id", "reason?", "dry_run?", "amount")
    out = tmp_path / "out"
    # zest: frontier's edge values also leave a read key out (a direct invocation admits
    # any payload: its KeyErrors are real, but this test is about the keys put in)
    args = ["fuzz", str(tmp_path), "--execs", "300", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(cli, [*args, "--strategy", "zest"])
    assert result.exit_code == 1, result.output
    failures = [p.name for p in (out / "RefundFunction" / "failures").glob("*.json")]
    assert failures and all(name.startswith("TypeError-at-refunds-py") for name in failures)
    corpus = [json.loads(p.read_text()) for p in (out / "RefundFunction" / "corpus").glob("*.json")]
    assert all({"order_id", "amount"} <= set(c["event"]) for c in corpus)
    assert any("dry_run" not in c["event"] for c in corpus)  # looked for, not always there


CLICKS = """\
import base64
import json


def handler(event, context):
    pages = 0
    for record in event["Records"]:
        try:
            click = json.loads(base64.b64decode(record["kinesis"]["data"]))
        except ValueError:
            continue  # not a click: skipped, as the producer's contract allows
        if isinstance(click, dict) and "page" in click:
            pages += len(click["page"])  # planted: a page that is not a sequence
    return {"pages": pages}
"""


def test_a_kinesis_function_gets_base64_records_of_its_stream(tmp_path):
    import base64

    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli
    from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
    from lambdafuzz.generators.aws.world_generator import generate_input
    from lambdafuzz.generators.core import Choices

    write_app(tmp_path, template_text("sam", "kinesis_stream"), {"src/clicks.py": CLICKS})
    target = load_template(tmp_path / "template.yaml").target
    trigger = target.trigger
    assert (trigger.kind, trigger.source, trigger.records_max) == (
        TriggerKind.KINESIS,
        "click-stream",
        3,
    )
    records = json_records = 0
    for seed in range(20):
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        sequences = []
        for record in event["Records"]:
            assert record["eventSource"] == "aws:kinesis"
            assert record["eventSourceARN"].endswith(":stream/click-stream")
            records += 1
            try:  # JSON by default: most records, raw bytes or other text now and then
                json.loads(base64.b64decode(record["kinesis"]["data"]))
                json_records += 1
            except ValueError:
                pass
            sequences.append(int(record["kinesis"]["sequenceNumber"]))
        assert sequences == sorted(sequences)
    assert json_records >= 0.7 * records, (json_records, records)
    out = tmp_path / "out"
    args = ["fuzz", str(tmp_path), "--execs", "400", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(cli, [*args, "--strategy", "zest-strings"])  # "page"
    assert result.exit_code == 1, result.output
    failures = [p.name for p in (out / "ClickFunction" / "failures").glob("*.json")]
    assert any(name.startswith("TypeError-at-clicks-py") for name in failures), failures


NIGHTLY = """\
import os

import boto3

table = boto3.resource("dynamodb").Table(os.environ.get("TABLE", "orders"))


def handler(event, context):
    assert event["detail-type"] == "Scheduled Event" and event["source"] == "aws.events"
    total = 0
    for item in table.scan()["Items"]:
        total += int(item.get("amount", 0))  # planted: an amount that is not a number
    return {"total": total, "rule": event["resources"][0].rsplit("/", 1)[-1]}
"""


def test_a_scheduled_function_gets_scheduled_events_and_a_generated_world(tmp_path, caplog):
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    write_app(tmp_path, template_text("sam", "scheduled_functions"), {"src/nightly.py": NIGHTLY})
    target = load_template(tmp_path / "template.yaml", "NightlyFunction").target
    assert (target.trigger.kind, target.trigger.source) == (TriggerKind.SCHEDULE, "nightly-report")
    assert [t.name for t in target.resources.tables] == ["Orders"]
    with caplog.at_level(logging.WARNING):
        fuzzable = template_function_names(tmp_path / "template.yaml")
    assert fuzzable == ["NightlyFunction", "ConstantFunction"]
    # a Schedule with Input is not a Scheduled Event: its function always gets the Input
    constant = load_template(tmp_path / "template.yaml", "ConstantFunction").target
    assert constant.trigger.kind is TriggerKind.DIRECT
    assert [(json.loads(s.payload_json), s.fixed) for s in constant.samples] == [
        ({"mode": "tick"}, True)
    ]
    out = tmp_path / "out"
    args = ["fuzz", str(tmp_path), "--function", "NightlyFunction", "--execs", "300"]
    args += ["--out", str(out / "NightlyFunction"), "--quiet"]
    result = CliRunner().invoke(cli, [*args, "--strategy", "zest-strings"])  # "amount"
    assert result.exit_code == 1, result.output
    failures = [p.name for p in (out / "NightlyFunction" / "failures").glob("*.json")]
    planted = ("ValueError-at-nightly-py-in-", "TypeError-at-nightly-py-in-")  # int(amount)
    assert failures and all(name.startswith(planted) for name in failures), failures
    saved = json.loads(sorted((out / "NightlyFunction" / "corpus").glob("*.json"))[0].read_text())
    assert saved["event"]["resources"][0].endswith(":rule/nightly-report")


@pytest.mark.parametrize(
    ("function", "kind", "source", "records_max", "note"),
    [
        ("MskFunction", TriggerKind.MSK, "orders", 3, "Topics ['refunds']: lambdafuzz reads one"),
        ("KafkaFunction", TriggerKind.KAFKA, "clicks", 5, "SourceAccessConfigurations is not"),
        ("ActiveFunction", TriggerKind.ACTIVEMQ, "jobs", 5, "assumed ActiveMQ"),
        ("RabbitFunction", TriggerKind.RABBITMQ, "work.queue", 5, None),
    ],
)
def test_broker_events_import_as_their_trigger_kind(
    tmp_path, function, kind, source, records_max, note
):
    write_app(tmp_path, template_text("sam", "broker_events"))
    imported = load_template(tmp_path / "template.yaml", function)
    trigger = imported.target.trigger
    assert (trigger.kind, trigger.source, trigger.records_max) == (kind, source, records_max)
    notes = [n for n in imported.unsupported if n.startswith("Events.")]
    if note is None:
        assert notes == []
    else:
        assert any(note in n for n in notes), notes


def _zip(path: Path, members: dict[str, str]) -> None:
    import zipfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)


def test_a_zip_code_uri_is_unpacked_into_the_cache_and_a_py_code_uri_is_its_module(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    worker = (
        "from jobs.parse import parse\n\ndef handler(event, context):\n    return parse(event)\n"
    )
    members = {
        "worker.py": worker,
        "jobs/__init__.py": "",
        "jobs/parse.py": "def parse(e):\n    return 1\n",
    }
    _zip(tmp_path / "dist" / "package.zip", members)
    write_app(
        tmp_path,
        template_text("sam", "packaged_code_uris"),
        {"src/single.py": "def handler(e, c):\n    return 1\n", "src/other.py": ""},
    )
    zipped = load_template(tmp_path / "template.yaml", "ZipFunction").target
    assert zipped.root.parent == tmp_path / "cache" / "lambdafuzz" / "code"
    assert (zipped.root / "worker.py").read_text() == worker
    assert set(zipped.app_packages) == {"worker", "jobs"}
    assert load_template(tmp_path / "template.yaml", "ZipFunction").target.root == zipped.root
    single = load_template(tmp_path / "template.yaml", "FileFunction").target
    assert (single.root, single.app_packages) == (tmp_path / "src", ("single",))


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        ({"../escape.py": "x = 1\n", "worker.py": ""}, "outside the package directory"),
        ({"/etc/evil.py": "", "worker.py": ""}, "outside the package directory"),
        (None, "not a readable zip archive"),
    ],
)
def test_a_hostile_or_corrupt_zip_code_uri_is_refused(tmp_path, monkeypatch, members, expected):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    archive = tmp_path / "dist" / "package.zip"
    if members is None:
        archive.parent.mkdir(parents=True)
        archive.write_bytes(b"PK\x03\x04 truncated")
    else:
        _zip(archive, members)
    write_app(tmp_path, template_text("sam", "packaged_code_uris"))
    with pytest.raises(ConfigError, match=expected):
        load_template(tmp_path / "template.yaml", "ZipFunction")
    assert not (tmp_path / "escape.py").exists()
    assert not list((tmp_path / "cache").rglob("*.py"))


CLOSE = """\
import os

import boto3

table = boto3.resource("dynamodb").Table(os.environ["TABLE"])


def handler(event, context):
    assert event == {"mode": "close", "days": 1}, event  # the schedule's Input, always
    total = 0
    for item in table.scan()["Items"]:
        total += len(item["id"]) // (len(item) - 1)  # planted: an item with only its key
    return {"closed": total}
"""


def test_a_schedule_input_is_the_constant_payload_and_only_the_world_varies(tmp_path):
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    write_app(tmp_path, template_text("sam", "schedule_input"), {"src/close.py": CLOSE})
    target = load_template(tmp_path / "template.yaml", "CloseFunction").target
    assert target.trigger.kind is TriggerKind.DIRECT
    assert [(s.name, json.loads(s.payload_json), s.fixed) for s in target.samples] == [
        ("constant", {"mode": "close", "days": 1}, True)
    ]
    out = tmp_path / "out"
    args = ["fuzz", str(tmp_path / "template.yaml"), "--function", "CloseFunction"]
    result = CliRunner().invoke(cli, [*args, "--execs", "300", "--out", str(out), "--quiet"])
    assert result.exit_code == 1, result.output
    failures = sorted(p.name for p in (out / "failures").glob("*.json"))
    assert failures, result.output
    assert all(n.startswith("ZeroDivisionError") for n in failures), failures
    skipped = template_functions(tmp_path / "template.yaml").skipped
    assert any(n.startswith("ReshapedFunction") for n in skipped), skipped
