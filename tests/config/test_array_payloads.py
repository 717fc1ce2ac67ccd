"""A function whose handler iterates its payload (a Step Functions Map's results, a batch
its caller collects) is sent JSON arrays of objects, its items' keys read from the loop
variable; a handler that reads keys of its payload keeps object payloads."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lambdafuzz.config.event_keys import array_item_keys
from lambdafuzz.config.sam import load_template_target
from lambdafuzz.config.sample_events import misfit
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.sam import template_text
from tests.fixtures.template_runs import drawn_events

HANDLERS = """\
def merge(event, context):
    names = sorted({row["name"] for row in event})
    return {"count": len(names), "first": event[0].get("kind") if event else None}


def single(event, context):
    return event["name"]
"""


def _source(tmp_path: Path, code: str) -> Path:
    path = tmp_path / "handler.py"
    path.write_text(textwrap.dedent(code))
    return path


@pytest.mark.parametrize(
    ("code", "keys"),
    [
        ("def h(event, ctx):\n    for row in event:\n        row['id']\n", ("id",)),
        ("def h(event, ctx):\n    return [x['id'] for x in event if x.get('ok')]\n", ("id", "ok?")),
        ("def h(event, ctx):\n    for i, x in enumerate(event):\n        x['n']\n", ("n",)),
        ("def h(event, ctx):\n    return event[0]['id']\n", ("id",)),
        ("def h(event, ctx):\n    for row in event:\n        print(row)\n", ()),
    ],
)
def test_a_handler_iterating_its_payload_reads_its_items_keys(tmp_path, code, keys):
    assert array_item_keys(_source(tmp_path, code), "h") == keys


@pytest.mark.parametrize(
    "code",
    [
        "def h(event, ctx):\n    for k in event:\n        event[k]\n    return event['id']\n",
        "def h(event, ctx):\n    for r in event['Records']:\n        r['id']\n",
        "def h(event, ctx):\n    return event.get('id')\n",
    ],
)
def test_a_handler_reading_keys_of_its_payload_is_sent_objects(tmp_path, code):
    assert array_item_keys(_source(tmp_path, code), "h") is None


def _app(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(HANDLERS)
    (tmp_path / "template.yaml").write_text(template_text("array_payloads", "merge_and_single"))
    return tmp_path / "template.yaml"


def test_a_template_function_iterating_its_payload_is_sent_arrays_of_objects(tmp_path):
    target = load_template_target(_app(tmp_path), "Merge")
    trigger = target.trigger
    assert (trigger.kind, trigger.event_array, trigger.event_keys) == (
        TriggerKind.DIRECT,
        True,
        ("name", "kind?"),
    )
    events = drawn_events(target, range(60))
    assert all(isinstance(e, list) and len(e) <= 5 for e in events)
    items = [item for e in events for item in e]
    assert {len(e) for e in events} >= {0, 1, 2}
    assert items and all(isinstance(item, dict) for item in items)
    # `name` is subscripted: every item holds it unless an edge value leaves it out
    assert sum("name" in item for item in items) >= 0.8 * len(items)
    assert 0 < sum("kind" in item for item in items) < len(items)


def test_a_template_function_reading_keys_keeps_object_payloads(tmp_path):
    target = load_template_target(_app(tmp_path), "Single")
    assert not target.trigger.event_array
    assert all(isinstance(e, dict) for e in drawn_events(target, range(30)))


def _config(tmp_path: Path, trigger: dict) -> dict:
    (tmp_path / "app.py").write_text(HANDLERS)
    return {"handler": "app.merge", "root": str(tmp_path), "trigger": trigger}


def test_a_config_declares_an_array_payload(tmp_path):
    target = target_from_dict(
        _config(tmp_path, {"kind": "direct", "array": True, "keys": ["name"]}), tmp_path
    )
    assert target.trigger.event_array
    assert misfit({"name": "a"}, target.trigger) is not None  # an object is not its payload
    assert misfit([{"name": "a"}], target.trigger) is None


@pytest.mark.parametrize(
    "trigger",
    [
        {"kind": "sqs", "source": "q", "array": True},
        {"kind": "direct", "array": True, "payloads": [{"a": 1}]},
    ],
)
def test_array_is_only_for_a_direct_trigger_without_payload_templates(tmp_path, trigger):
    config = _config(tmp_path, trigger)
    config["resources"] = {"queues": [{"name": "q"}]}
    with pytest.raises(ConfigError, match="array"):
        target_from_dict(config, tmp_path)
