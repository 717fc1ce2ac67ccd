"""lambdafuzz.yaml: what loads, and the one-paragraph error for each kind of mistake."""

from __future__ import annotations

import logging
import pickle
import time
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import TriggerKind, resolve_env
from lambdafuzz.model.world import LoadedWorld, World
from tests.fixtures.config_files import error_for, write_config

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks" / "lambdas"

GOOD = """\
handler: app.handler
trigger: {kind: sqs, source: jobs, body: s3-event, records: {min: 1, max: 3}}
env:
  QUEUE_URL: "${queues.jobs.url}"
  STREAM: "${tables.grades.stream_arn}"
  TOPIC: "arn=${topics.alerts.arn}"
  RETRIES: 3
timeout_s: 5
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 3, formats: [csv, zip], prefixes: ["incoming/"]}
    - name: uploads-thumbnails
  tables:
    - name: grades
      hash_key: {name: id, type: S}
      range_key: {name: ts, type: N}
      items: {min: 0, max: 5}
      stream: NEW_AND_OLD_IMAGES
  queues: [{name: jobs, messages: {min: 0, max: 3}}]
  topics: [{name: alerts}]
outcomes:
  invalid: {exceptions: [ValueError], status_codes: [400]}
  failure: {status_codes: [500]}
"""


def test_good_config_loads_into_dataclasses(tmp_path):
    target = load_config(write_config(tmp_path, GOOD).parent)  # a directory works too
    assert target.handler_module == "app" and target.handler_function == "handler"
    assert target.root == tmp_path.resolve() and target.app_packages == ("app",)
    assert target.trigger.kind is TriggerKind.SQS and target.trigger.source == "jobs"
    assert (target.trigger.records_min, target.trigger.records_max) == (1, 3)
    assert target.env["QUEUE_URL"] == "${queues.jobs.url}"  # raw until resolve_env
    assert target.env["RETRIES"] == "3"
    assert target.resources.buckets[1].objects is None  # output bucket
    table = target.resources.tables[0]
    assert (table.key_schema.hash_name, table.key_schema.range_type) == ("id", "N")
    assert target.outcomes.invalid_status_codes == (400,)
    assert target.outcomes.status_from == "statusCode"
    assert pickle.loads(pickle.dumps(target)) == target  # targets travel to workers


def test_resolve_env_substitutes_backend_facts(tmp_path):
    target = load_config(write_config(tmp_path, GOOD))
    world = World()
    loaded = LoadedWorld(
        world=world,
        queue_urls={"jobs": "http://127.0.0.1:5000/123456789012/jobs"},
        stream_arns={"grades": "arn:aws:dynamodb:us-east-1:123456789012:table/grades/stream/x"},
    )
    env = resolve_env(target, loaded)
    assert env["QUEUE_URL"] == "http://127.0.0.1:5000/123456789012/jobs"
    assert env["STREAM"].endswith("table/grades/stream/x")
    assert env["TOPIC"] == "arn=arn:aws:sns:us-east-1:123456789012:alerts"  # fallback ARN


@pytest.mark.parametrize(
    "path", sorted(BENCHMARKS.glob("*/lambdafuzz.yaml")), ids=lambda p: p.parent.name
)
def test_benchmark_configs_load(path):
    target = load_config(path)
    assert target.trigger.kind is TriggerKind.S3
    assert target.trigger.source in [b.name for b in target.resources.buckets if b.objects]


def test_unknown_trigger_names_the_field_and_suggests(tmp_path):
    message = error_for(tmp_path, GOOD.replace("kind: sqs", "kind: sqss"))
    assert "trigger.kind" in message and "'sqss'" in message
    assert "Did you mean 'sqs'?" in message
    assert ":2:" in message  # the line of the field


def test_trigger_shorthand_unknown_kind(tmp_path):
    text = GOOD.replace(
        "trigger: {kind: sqs, source: jobs, body: s3-event, records: {min: 1, max: 3}}",
        "trigger: s4",
    )
    message = error_for(tmp_path, text)
    assert "trigger.kind" in message and "Did you mean 's3'?" in message


def test_bad_key_type_names_the_field(tmp_path):
    message = error_for(tmp_path, GOOD.replace("{name: id, type: S}", "{name: id, type: STRING}"))
    assert "resources.tables[0].hash_key.type" in message
    assert "'STRING'" in message and "'S', 'N', 'B'" in message


def test_missing_handler_names_the_field(tmp_path):
    message = error_for(tmp_path, GOOD.replace("handler: app.handler\n", ""))
    assert "handler is missing" in message and "module.function" in message


def test_handler_module_not_found_suggests_nearest(tmp_path):
    message = error_for(tmp_path, GOOD.replace("handler: app.handler", "handler: apps.handler"))
    assert "handler" in message and "'apps.handler'" in message
    assert "Did you mean 'app.handler'?" in message


def test_bad_bucket_name_names_the_field_and_suggests(tmp_path):
    message = error_for(tmp_path, GOOD.replace("name: uploads\n", "name: My_Uploads\n"))
    assert "resources.buckets[0].name" in message and "'My_Uploads'" in message
    assert "lowercase" in message and "Did you mean 'my-uploads'?" in message


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("ab", "3 to 63"),
        ("192.168.1.10", "IP address"),
        ("my..bucket", "adjacent dots"),
        ("xn--bucket", "reserved prefix"),
        ("bucket-s3alias", "reserved suffix"),
    ],
)
def test_bucket_naming_rules(tmp_path, name, rule):
    message = error_for(tmp_path, GOOD.replace("name: uploads\n", f"name: '{name}'\n"))
    assert "resources.buckets[0].name" in message and rule in message


def test_unknown_top_level_key_suggests(tmp_path):
    message = error_for(tmp_path, GOOD.replace("timeout_s: 5", "timeout: 5"))
    assert "unknown key timeout" in message and "Did you mean 'timeout_s'?" in message


def test_yaml_syntax_error_has_line_and_column(tmp_path):
    message = error_for(tmp_path, GOOD.replace("body: s3-event,", "body: [s3-event,"))
    assert "not valid YAML" in message
    assert ":2:" in message or ":3:" in message  # line:column of the problem


def test_trigger_source_must_be_right_kind(tmp_path):
    message = error_for(tmp_path, GOOD.replace("source: jobs", "source: uploads"))
    assert "trigger.source" in message and "resources.queues" in message


def test_s3_trigger_on_output_bucket_is_refused(tmp_path):
    text = GOOD.replace(
        "trigger: {kind: sqs, source: jobs, body: s3-event, records: {min: 1, max: 3}}",
        "trigger: {kind: s3, source: uploads-thumbnails}",
    )
    message = error_for(tmp_path, text)
    assert "trigger.source" in message and "output bucket" in message


def test_env_reference_to_undeclared_resource_suggests(tmp_path):
    message = error_for(tmp_path, GOOD.replace("${queues.jobs.url}", "${queues.job.url}"))
    assert "env.QUEUE_URL" in message and "Did you mean '${queues.jobs.url}'?" in message


def test_env_reference_bad_attribute(tmp_path):
    message = error_for(tmp_path, GOOD.replace("${topics.alerts.arn}", "${topics.alerts.url}"))
    assert "env.TOPIC" in message and "arn, name" in message


def test_unknown_nested_key_suggests(tmp_path):
    message = error_for(tmp_path, GOOD.replace("{name: id, type: S}", "{name: id, typ: S}"))
    assert "resources.tables[0].hash_key.typ" in message and "Did you mean 'type'?" in message


def test_unknown_format_suggests(tmp_path):
    message = error_for(tmp_path, GOOD.replace("formats: [csv, zip]", "formats: [csv, zpi]"))
    assert "resources.buckets[0].objects.formats[1]" in message and "Did you mean 'zip'?" in message


def test_min_above_max(tmp_path):
    message = error_for(
        tmp_path, GOOD.replace("items: {min: 0, max: 5}", "items: {min: 6, max: 5}")
    )
    assert "resources.tables[0].items.max" in message and "max >= min (6)" in message


def test_wrong_type_with_suggestion(tmp_path):
    message = error_for(tmp_path, GOOD.replace("timeout_s: 5", "timeout_s: 'five'"))
    assert "timeout_s is 'five'" in message and "a number" in message


def test_duplicate_key(tmp_path):
    message = error_for(tmp_path, GOOD + "timeout_s: 6\n")
    assert "timeout_s appears twice" in message


def test_fifo_queue_needs_fifo_suffix(tmp_path):
    message = error_for(
        tmp_path, GOOD.replace("{name: jobs, messages", "{name: jobs, fifo: true, messages")
    )
    assert "resources.queues[0].name" in message and "Did you mean 'jobs.fifo'?" in message


def test_real_credentials_in_env_refused(tmp_path):
    message = error_for(tmp_path, GOOD.replace("RETRIES: 3", "AWS_PROFILE: prod"))
    assert "env.AWS_PROFILE" in message and "fake credentials" in message


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ConfigError, match="no lambdafuzz.yaml"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.yaml")


def test_status_from_unknown_key_warns_unless_the_handler_spells_it(tmp_path, caplog):
    text = GOOD + "  status_from: statuscode\n"
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config"):
        target = load_config(write_config(tmp_path / "a", text))
    assert target.outcomes.status_from == "statuscode"
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "outcomes.status_from is 'statuscode'" in warning
    assert "Did you mean 'statusCode'?" in warning and ":25:" in warning
    caplog.clear()
    path = write_config(tmp_path / "b", text)
    (path.parent / "app.py").write_text(
        "def handler(event, context):\n    return {'statuscode': 200}\n"
    )
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config"):
        load_config(path)
    assert not caplog.records  # the handler writes that key: not a misspelling


def test_import_timeout_s_reaches_the_target(tmp_path):
    assert load_config(write_config(tmp_path / "a", GOOD)).import_timeout_s == 30.0
    target = load_config(write_config(tmp_path / "b", GOOD + "import_timeout_s: 4.5\n"))
    assert target.import_timeout_s == 4.5


def test_anchors_and_merge_keys_within_the_limits_load(tmp_path):
    text = GOOD.replace("      objects: {min", "      objects: &objects {min").replace(
        "    - name: uploads-thumbnails\n",
        "    - name: uploads-thumbnails\n    - name: more-uploads\n"
        "      objects: {<<: *objects, max: 2}\n",
    )
    target = load_config(write_config(tmp_path, text))
    objects = target.resources.bucket("more-uploads").objects
    assert objects is not None and (objects.max, objects.formats) == (2, ("csv", "zip"))


def test_a_large_legitimate_config_loads_quickly(tmp_path):
    words = "".join(f"  - word-{i:06d}-{'x' * 20}\n" for i in range(15_000))  # ~550 kB
    path = write_config(tmp_path, GOOD + "dictionary:\n" + words)
    started = time.monotonic()
    target = load_config(path)
    assert len(target.dictionary) == 15_000
    assert time.monotonic() - started < 5


def test_unknown_key_hints_come_from_the_schema(tmp_path):
    cases = {
        "trigger_source: jobs": "Did you mean trigger.source?",
        "source: jobs": "source is valid under trigger, not at the top level",
        "tables: []": "tables is valid under resources",
        "packages: [app]": "Did you mean 'app_packages'?",
        "Environment: {}": "Did you mean 'env'?",
        "region: us-west-2": "not needed",
    }
    for i, (line, hint) in enumerate(cases.items()):
        message = error_for(tmp_path / str(i), GOOD.replace("timeout_s: 5", line))
        assert hint in message, message
        assert "Did you mean 'resources'" not in message


def test_missing_objects_applies_to_s3_notifications_only(tmp_path):
    on_s3_body = GOOD.replace("records: {min: 1, max: 3}}", "missing_objects: true}")
    assert load_config(write_config(tmp_path / "ok", on_s3_body)).trigger.missing_objects
    assert load_config(write_config(tmp_path / "default", GOOD)).trigger.missing_objects is False
    on_csv = on_s3_body.replace("body: s3-event", "body: csv")
    message = error_for(tmp_path / "csv", on_csv)
    assert "trigger.missing_objects" in message
    assert "only for S3 notifications" in message


def test_a_direct_trigger_takes_payload_keys_and_nothing_else(tmp_path):
    base = "handler: app.handler\ntrigger: {kind: direct, keys: [order_id, 'reason?']}\n"
    target = load_config(write_config(tmp_path / "ok", base))
    assert target.trigger.kind is TriggerKind.DIRECT
    assert target.trigger.event_keys == ("order_id", "reason?")
    message = error_for(tmp_path / "s3", GOOD.replace("records: {min: 1, max: 3}}", "keys: [a]}"))
    assert "trigger.keys" in message and "only for a direct trigger" in message
    sourced = "handler: app.handler\ntrigger: {kind: direct, source: jobs}\n"
    assert "no source for direct" in error_for(tmp_path / "source", sourced)


def test_a_constant_payload_is_only_for_a_direct_trigger_and_must_be_json(make_target):
    with pytest.raises(ConfigError, match="constant only for a direct trigger"):
        make_target(
            "handler: app.handler\ntrigger: {kind: sns, constant: {a: 1}}\nresources: {topics: [{name: t}]}\n"
        )
    with pytest.raises(ConfigError, match="a JSON value"):
        make_target("handler: app.handler\ntrigger: {kind: direct, constant: {day: 2026-01-01}}\n")
    target = make_target("handler: app.handler\ntrigger: {kind: direct, constant: null}\n")
    assert [(s.payload_json, s.fixed) for s in target.samples] == [("null", True)]


def test_empty_app_packages_is_a_config_error_not_the_handlers_package(tmp_path):
    from click.testing import CliRunner

    from lambdafuzz.cli.main import cli

    config = write_config(tmp_path / "app", "app_packages: []\n" + GOOD)
    message = error_for(tmp_path / "app", "app_packages: []\n" + GOOD)
    assert f"{config}:1" in message or str(config) in message
    assert "app_packages is []" in message and "at least one package" in message
    result = CliRunner().invoke(
        cli, ["fuzz", str(config), "--execs", "5", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert "app_packages is []; expected at least one package" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()  # nothing was measured
    # no key at all still measures the handler's own package
    assert load_config(write_config(tmp_path / "none", GOOD)).app_packages == ("app",)
