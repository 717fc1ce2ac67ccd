"""An EventBridge handler's custom events carry what it reads below `detail` (through local
names), the fields it compares with constants holding them half the time; a handler that
reads nothing there keeps free details."""

from __future__ import annotations

import json
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.config.event_keys import read_shape
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.world import LoadedWorld

HANDLER = """\
def handler(event, context):
    detail = event["detail"]
    item = detail["check-item-detail"]
    name = item["Bucket Name"]
    if item["Status"] != "No" or detail.get("kind") in ("full", "partial"):
        return name
    return None
"""

CONFIG = """\
handler: app.handler
trigger:
  kind: eventbridge
  filters:
    - source: [aws.trustedadvisor]
"""


def _target(tmp_path: Path, handler: str = HANDLER, source: str = "aws.trustedadvisor"):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "app.py").write_text(handler)
    (tmp_path / "lambdafuzz.yaml").write_text(CONFIG.replace("aws.trustedadvisor", source))
    return load_config(tmp_path / "lambdafuzz.yaml")


def test_what_a_handler_reads_below_detail_through_local_names(tmp_path):
    (tmp_path / "app.py").write_text(HANDLER)
    read = read_shape(tmp_path / "app.py", "handler", "detail")
    assert read is not None
    assert json.loads(read.shape_json) == {
        "required": {
            "check-item-detail": {
                "required": {"Bucket Name": "any", "Status": "any"},
                "optional": {},
            }
        },
        "optional": {"kind": "any"},
    }
    assert dict(read.compared) == {
        ("check-item-detail", "Status"): ("No",),
        ("kind",): ("full", "partial"),
    }


def _details(target, seeds=range(300)) -> list:
    details = []
    for seed in seeds:
        generated = generate_input(Choices(seed=seed, policy=DrawPolicy(edge_values=True)), target)
        details.append(generated.render_event(LoadedWorld(generated.world))["detail"])
    return details


def test_custom_details_hold_the_fields_the_handler_reads(tmp_path):
    target = _target(tmp_path)
    assert target.trigger.detail_reads is not None
    details = _details(target)
    items = [d.get("check-item-detail") for d in details]
    whole = [i for i in items if isinstance(i, dict) and {"Bucket Name", "Status"} <= set(i)]
    assert len(whole) >= 0.6 * len(details)  # the rest: free details, a field left out
    no = sum(i["Status"] == "No" for i in whole)
    assert 0.3 * len(whole) <= no <= 0.7 * len(whole)  # the comparison decided both ways
    kinds = [d["kind"] for d in details if isinstance(d.get("kind"), str)]
    assert {"full", "partial"} <= set(kinds)


def test_a_handler_reading_nothing_below_detail_has_no_detail_shape(tmp_path):
    target = _target(tmp_path, "def handler(event, context):\n    return event['source']\n")
    assert target.trigger.detail_reads is None
    assert target.trigger.detail_compared == ()


def test_aws_service_events_always_hold_what_is_read_and_custom_ones_mostly(tmp_path):
    """AWS writes every field of the events it sends; a custom producer may send another
    object (20%) or leave a field out."""
    service = _details(_target(tmp_path / "aws"))
    custom = _details(_target(tmp_path / "custom", source="com.example.audit"))
    lacking = [sum("check-item-detail" not in d for d in ds) for ds in (service, custom)]
    assert lacking[0] <= 0.05 * len(service)  # the `absent` edge value only
    assert 0.1 * len(custom) <= lacking[1] <= 0.35 * len(custom)
