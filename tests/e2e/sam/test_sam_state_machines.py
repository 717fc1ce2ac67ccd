"""Functions a state machine's tasks invoke get the tasks' payloads: the template's ways of
declaring a state machine and naming the function, the `payloads` of a lambdafuzz.yaml,
the generated payloads' shape (a task token always a non-empty string, constants as
written) and a campaign of a task handler that never fails on a payload its task sends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.events import draw_event_plan, render_event
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.target import TriggerKind
from lambdafuzz.model.world import LoadedWorld, World
from tests.fixtures.sam import template_text
from tests.fixtures.template_runs import drawn_events, line_of, reached_without_a_bug

APP = Path(__file__).parent / "apps" / "state_machines"
TEMPLATE = APP / "template.yaml"
HANDLER = APP / "src" / "tasks.py"
SEEDS = range(100)
CHARGE = {  # `$$.State.Name` is evaluated at import: the task state's own name
    "token.$": "$$.Task.Token",
    "order.$": "$.order",
    "execution.$": "$$.Execution.Id",
    "step": "Charge",
    "mode": "capture",
    "limits": {"max": 500},
}
SHIP = {"item.$": "$$.Map.Item.Value", "index.$": "$$.Map.Item.Index", "carrier": "ground"}
NOTIFY = {
    "message.$": "States.Format('Order {} is ready', $.orderId)",
    "requestId.$": "States.UUID()",
    "channel": "email",
}


@pytest.mark.parametrize(
    ("function", "payload"),
    [
        ("ChargeFunction", CHARGE),  # Serverless::StateMachine, Definition, substitutions
        ("ShipFunction", SHIP),  # StepFunctions::StateMachine, DefinitionString !Sub, Map
        ("NotifyFunction", NOTIFY),  # Serverless::StateMachine, DefinitionUri
    ],
)
def test_template_tasks_give_their_payload_templates(function, payload):
    imported = load_template(TEMPLATE, function)
    trigger = imported.target.trigger
    assert trigger.kind is TriggerKind.DIRECT
    assert imported.config["trigger"]["payloads"] == [payload]
    assert trigger.event_keys == ()  # the template says the keys, not the handler's reads


def test_a_task_passing_its_input_whole_keeps_the_keys_the_handler_reads():
    trigger = load_template_target(TEMPLATE, "ArchiveFunction").trigger
    assert (trigger.kind, trigger.payloads, trigger.event_keys) == (
        TriggerKind.DIRECT,
        (),
        ("orderId",),
    )


def _payloads(function: str) -> list[dict]:
    target = load_template_target(TEMPLATE, function)
    return drawn_events(target, SEEDS)


def test_charge_payloads_have_the_tasks_shape():
    execution = re.compile(
        r"arn:aws:states:us-east-1:123456789012:execution:[A-Za-z][\w-]*:[0-9a-f-]{36}"
    )
    orders = set()
    for payload in _payloads("ChargeFunction"):
        assert set(payload) == {"token", "order", "execution", "step", "mode", "limits"}
        assert isinstance(payload["token"], str) and payload["token"].startswith("AQ")
        assert execution.fullmatch(payload["execution"]), payload["execution"]
        assert (payload["step"], payload["mode"], payload["limits"]) == (
            "Charge",
            "capture",
            {"max": 500},
        )
        orders.add(type(payload["order"]).__name__)
    assert len(orders) >= 3  # `$.order` is any JSON value of the state's input


def test_map_item_payloads():
    for payload in _payloads("ShipFunction"):
        assert set(payload) == {"item", "index", "carrier"}
        assert type(payload["index"]) is int and payload["index"] >= 0
        assert payload["carrier"] == "ground"


def test_intrinsic_function_payloads():
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    for payload in _payloads("NotifyFunction"):
        assert set(payload) == {"message", "requestId", "channel"}
        assert isinstance(payload["message"], str) and uuid.fullmatch(payload["requestId"])


def _config(trigger: dict) -> dict:
    return {"handler": "tasks.charge", "root": "src", "trigger": trigger}


def test_a_config_declares_payload_templates():
    templates = [{"token.$": "$$.Task.Token", "kind": "a"}, {"id.$": "$.id"}]
    target = target_from_dict(_config({"kind": "direct", "payloads": templates}), TEMPLATE)
    assert target.trigger.payloads == (
        '{"token.$": "$$.Task.Token", "kind": "a"}',
        '{"id.$": "$.id"}',
    )
    seen = set()
    world = World()
    for seed in range(40):
        plan = draw_event_plan(Choices(seed=seed), target, world)
        payload = render_event(plan, LoadedWorld(world))
        seen.add(tuple(sorted(payload)))
        if "token" in payload:
            assert payload["kind"] == "a" and payload["token"]
    assert seen == {("kind", "token"), ("id",)}  # each template's payloads, and only those


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        ({"kind": "sqs", "source": "q", "payloads": [{}]}, "payloads only for a direct"),
        ({"kind": "direct", "keys": ["a"], "payloads": [{}]}, "trigger.payloads or trigger.keys"),
    ],
)
def test_a_config_payloads_setting_is_validated(trigger, expected):
    config = _config(trigger)
    config["resources"] = {"queues": [{"name": "q"}]}
    with pytest.raises(ConfigError) as caught:
        target_from_dict(config, TEMPLATE)
    assert expected in str(caught.value)


def test_an_unreadable_definition_is_one_note(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tasks.py").write_text(HANDLER.read_text())
    (tmp_path / "template.yaml").write_text(
        template_text("state_machines", "unreadable_definition_uri")
    )
    imported = load_template(tmp_path / "template.yaml", "Fn")
    assert imported.target.trigger.kind is TriggerKind.DIRECT
    notes = [n for n in imported.unsupported if "DefinitionUri" in n]
    assert len(notes) == 1 and "missing.asl.json cannot be read" in notes[0], notes


def test_a_task_campaign_finds_nothing(tmp_path):
    target = load_template_target(TEMPLATE, "ChargeFunction")
    reached = reached_without_a_bug(
        target, tmp_path, seed=2, execs=150
    )  # every payload well formed
    captured = line_of(HANDLER, 'status = "captured"')
    assert captured in reached, f"seed 2: {sorted(reached)}"


@pytest.mark.parametrize("named", ["Archiver", "Archiver:live"])
def test_a_task_naming_the_function_by_its_plain_name_gives_its_payload(tmp_path, named):
    """Lambda's FunctionName parameter takes a function's name alone (or with an alias),
    as much as its ARN."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tasks.py").write_text(HANDLER.read_text())
    (tmp_path / "template.yaml").write_text(
        template_text("state_machines", "task_names_function", named=named)
    )
    trigger = load_template(tmp_path / "template.yaml", "Fn").target.trigger
    assert trigger.kind is TriggerKind.DIRECT and len(trigger.payloads) == 1
