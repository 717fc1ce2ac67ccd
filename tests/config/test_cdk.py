"""A CDK cloud assembly (`cdk.out/`) fuzzed as it is: stack template, asset code folders,
event source mappings and the custom resource CDK writes for S3 notifications."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import resolve_config
from lambdafuzz.config.sam import load_template, template_functions
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import TriggerKind

CDK_OUT = Path(__file__).parents[1] / "e2e" / "constructs" / "apps" / "cdk_output" / "cdk.out"
TEMPLATE = CDK_OUT / "MeterReadingsStack.template.json"
INGEST, ALERTS = "IngestReadingsFunction5A1B7C3D", "MeterAlertsFunction8E2F4A6B"
INGEST_ASSET = "asset.9b2e4f6a8c0d1e3f5a7b9c1d3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2b4c6d8e1f"


def test_the_assembly_folder_means_its_stack_template():
    assert resolve_config(CDK_OUT) == TEMPLATE


def test_cdk_internal_functions_are_skipped_and_said_so():
    functions = template_functions(TEMPLATE)
    assert functions.fuzzable == (INGEST, ALERTS)
    (skipped,) = functions.skipped
    assert skipped.startswith("BucketNotificationsHandler") and "CDK" in skipped


def test_a_function_takes_its_code_from_its_asset_and_s3_notifications_from_the_custom_resource():
    imported = load_template(TEMPLATE, INGEST)
    t = imported.target
    assert t.root == (CDK_OUT / INGEST_ASSET).resolve()
    assert (t.handler_module, t.handler_function) == ("ingest", "handler")
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.S3, "readingsbucket4c8b4ce5")
    objects = t.resources.bucket("readingsbucket4c8b4ce5").objects
    assert objects is not None and objects.prefixes == ("readings/",)
    assert objects.formats == ("csv",)
    assert dict(t.env) == {
        "TABLE_NAME": "ReadingsTable0F3A2B1C",
        "READINGS_BUCKET": "readingsbucket4c8b4ce5",
    }
    assert not any(
        "CDK::Metadata" in note or "S3BucketNotifications" in note for note in imported.unsupported
    )
    # the service role and its default policy are read into the permission check
    assert not any("AWS::IAM::" in note for note in imported.unsupported)
    role = "IngestReadingsFunctionServiceRole3B8C1E2A"
    assert [(s.source, s.resources) for s in t.permissions.statements] == [
        (f"Role {role}: managed AWSLambdaBasicExecutionRole", ("*",)),
        (
            f"Policy {role}DefaultPolicy (IngestReadingsFunctionServiceRoleDefaultPolicy)",
            ("${buckets.readingsbucket4c8b4ce5.arn}", "${buckets.readingsbucket4c8b4ce5.arn}/*"),
        ),
        (
            f"Policy {role}DefaultPolicy (IngestReadingsFunctionServiceRoleDefaultPolicy)",
            ("${tables.ReadingsTable0F3A2B1C.arn}",),
        ),
    ]
    assert t.permissions.unknown == ()


def test_an_event_source_mapping_triggers_a_cdk_function():
    t = load_template(TEMPLATE, ALERTS).target
    assert (t.trigger.kind, t.trigger.source) == (TriggerKind.SQS, "AlertsQueue9D2E7A41")
    assert (t.trigger.records_min, t.trigger.records_max) == (1, 5)
    assert t.env["TABLE_ARN"] == "${tables.ReadingsTable0F3A2B1C.arn}"


def copy_assembly(tmp_path: Path) -> Path:
    copy = tmp_path / "cdk.out"
    shutil.copytree(CDK_OUT, copy)
    return copy


def test_a_docker_bundled_asset_that_is_not_there_is_a_clear_message(tmp_path):
    copy = copy_assembly(tmp_path)
    shutil.rmtree(copy / INGEST_ASSET)
    template = copy / TEMPLATE.name
    data = json.loads(template.read_text())
    data["Resources"][INGEST]["Metadata"]["aws:asset:is-bundled"] = True
    template.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=r"bundled asset \(built in Docker .*run `cdk synth`"):
        load_template(template, INGEST)
    result = CliRunner().invoke(cli, ["fuzz", str(copy), "--function", INGEST, "--execs", "1"])
    assert result.exit_code == 2 and "cdk synth" in result.output
    assert ALERTS in template_functions(template).fuzzable  # the other function still is


def test_an_assembly_of_several_stacks_asks_for_one(tmp_path):
    copy = copy_assembly(tmp_path)
    manifest = json.loads((copy / "manifest.json").read_text())
    second = dict(manifest["artifacts"]["MeterReadingsStack"])
    second["properties"] = {**second["properties"], "templateFile": "BillingStack.template.json"}
    manifest["artifacts"]["BillingStack"] = second
    (copy / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(copy / TEMPLATE.name, copy / "BillingStack.template.json")
    with pytest.raises(ConfigError, match="2 stack templates .*BillingStack.template.json"):
        resolve_config(copy)
    result = CliRunner().invoke(cli, ["fuzz", str(copy), "--execs", "1"])
    assert result.exit_code == 2 and "pass the stack's template" in result.output


def test_a_zipped_asset_is_unpacked_as_a_zip_code_uri_is(tmp_path):
    copy = copy_assembly(tmp_path)
    archive = shutil.make_archive(str(copy / INGEST_ASSET), "zip", copy / INGEST_ASSET)
    shutil.rmtree(copy / INGEST_ASSET)
    template = copy / TEMPLATE.name
    data = json.loads(template.read_text())
    data["Resources"][INGEST]["Metadata"]["aws:asset:path"] = Path(archive).name
    template.write_text(json.dumps(data))
    target = load_template(template, INGEST).target
    assert (target.root / "ingest.py").read_text() == (
        CDK_OUT / INGEST_ASSET / "ingest.py"
    ).read_text()
