"""`trigger.asynchronous`: a direct trigger invoked asynchronously, which Lambda may
deliver more than once (the idempotency oracle then delivers some of its tests twice):
from lambdafuzz.yaml (direct triggers only) and from a template's settings that apply to
asynchronous invocations only (EventInvokeConfig, DeadLetterQueue)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.redelivery import redelivers
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.sam import template_text

HANDLER = "def handler(event, context):\n    return None\n"


def write_config(directory: Path, trigger: str, resources: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text(HANDLER)
    path = directory / "lambdafuzz.yaml"
    path.write_text(f"handler: app.handler\ntrigger: {trigger}\n{resources}")
    return path


def test_a_direct_trigger_invoked_asynchronously_is_delivered_again(tmp_path):
    on = load_config(write_config(tmp_path / "on", "{kind: direct, asynchronous: true}"))
    assert on.trigger.kind is TriggerKind.DIRECT and on.trigger.asynchronous
    assert redelivers(on.trigger)
    off = load_config(write_config(tmp_path / "off", "{kind: direct}"))
    assert off.trigger.asynchronous is False and not redelivers(off.trigger)


def test_asynchronous_on_another_trigger_is_a_config_error(tmp_path):
    path = write_config(
        tmp_path,
        "{kind: sqs, source: jobs, asynchronous: true}",
        "resources:\n  queues: [{name: jobs}]\n",
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "trigger.asynchronous is True" in message and "only for a direct trigger" in message
    assert "\n" not in message


def write_template(directory: Path, properties: str) -> Path:
    (directory / "src").mkdir(parents=True, exist_ok=True)
    (directory / "src" / "app.py").write_text(HANDLER)
    path = directory / "template.yaml"
    path.write_text(template_text("asynchronous", "direct_worker", properties=properties))
    return path


@pytest.mark.parametrize(
    "properties",
    [
        "      EventInvokeConfig: {MaximumRetryAttempts: 1}\n",
        "      DeadLetterQueue: {Type: SQS, TargetArn: !GetAtt Failed.Arn}\n",
    ],
)
def test_a_template_s_asynchronous_invocation_settings(tmp_path, properties):
    target = load_template(write_template(tmp_path, properties)).target
    assert target.trigger.kind is TriggerKind.DIRECT and target.trigger.asynchronous
    plain = load_template(write_template(tmp_path / "plain", "")).target
    assert plain.trigger.kind is TriggerKind.DIRECT and not plain.trigger.asynchronous
