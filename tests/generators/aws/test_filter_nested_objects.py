"""A filter on a nested field (`{"body": {"data": {"type": ["TEST"]}}}`) admits bodies whose
nested object holds the other fields a handler reads, not only the filtered one."""

from __future__ import annotations

import json

from lambdafuzz.generators.aws.bodies import steered_body
from lambdafuzz.generators.aws.filter_steering import steer
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.event_pattern import matches

RULE = {"data": {"type": ["TEST"]}}
FIELDS = ("data", "id", "message")
DRAWS = 200


def test_steered_bodies_keep_the_filter_and_hold_the_code_s_fields_too() -> None:
    datas = []
    for seed in range(DRAWS):
        text = steered_body(Choices(seed=seed, policy=DrawPolicy(fields=FIELDS)), RULE)
        assert text is not None
        document = json.loads(text)
        assert matches(RULE, document)
        datas.append(document["data"])
    assert all(d["type"] == "TEST" for d in datas)
    with_id = sum(1 for d in datas if "id" in d)
    with_both = sum(1 for d in datas if "id" in d and "message" in d)
    assert with_id > DRAWS // 4 and with_both > DRAWS // 8, (with_id, with_both)


def test_without_a_fresh_object_a_missing_nested_object_starts_empty() -> None:
    choices = Choices(seed=1)
    steered = steer(choices, RULE, {}, lambda: 0)
    assert steered == {"data": {"type": "TEST"}}
    made = steer(Choices(seed=1), RULE, {}, lambda: 0, lambda: {"id": 7})
    assert made == {"data": {"id": 7, "type": "TEST"}}
    kept = steer(Choices(seed=1), RULE, {"data": {"id": 1}}, lambda: 0, lambda: {"id": 7})
    assert kept == {"data": {"id": 1, "type": "TEST"}}  # an object already there is kept
