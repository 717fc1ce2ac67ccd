"""JSON documents: every type, shapes, bounded depth, labels."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files.json_files import json_documents

SHAPE = {
    "required": {
        "name": "string",
        "age": "integer",
        "score": "number",
        "active": "boolean",
        "tags": ["string"],
        "born": "date",
        "address": {"required": {"city": "string"}, "optional": {"zip": "integer"}},
    },
    "optional": {"nickname": "string", "extra": "any"},
}


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def test_every_json_type_appears() -> None:
    seen: set[type] = set()

    def walk(value: Any) -> None:
        seen.add(type(value))
        for child in (
            value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        ):
            walk(child)

    for seed in range(200):
        walk(json.loads(json_documents(Choices(seed=seed))))
    assert seen == {dict, list, str, int, float, bool, type(None)}


def test_nesting_depth_is_bounded() -> None:
    for max_depth in (0, 1, 3):
        deepest = max(
            depth(json.loads(json_documents(Choices(seed=s), max_depth=max_depth)))
            for s in range(150)
        )
        assert deepest <= max_depth + 1
    assert max(depth(json.loads(json_documents(Choices(seed=s)))) for s in range(300)) >= 3


def test_shape_fields_are_present_with_their_types() -> None:
    optional = extra = 0
    for seed in range(200):
        doc = json.loads(json_documents(Choices(seed=seed), shape=SHAPE))
        assert isinstance(doc["name"], str)
        assert type(doc["age"]) is int
        assert isinstance(doc["score"], int | float) and type(doc["score"]) is not bool
        assert type(doc["active"]) is bool
        assert all(isinstance(t, str) for t in doc["tags"])
        assert len(doc["born"]) >= 10 and doc["born"][4] == "-"
        assert isinstance(doc["address"]["city"], str)
        assert type(doc["address"].get("zip", 0)) is int
        optional += "nickname" in doc
        extra += bool(set(doc) - set(SHAPE["required"]) - set(SHAPE["optional"]))
    assert 60 <= optional <= 140  # optional keys about half the time
    assert 0 < extra < 40  # extra keys rarely


def test_shape_keys_come_from_the_dictionary_only_as_values() -> None:
    doc = json.loads(
        json_documents(
            Choices(seed=1, policy=DrawPolicy(dictionary=("Paris",), dictionary_p=1.0)), shape=SHAPE
        )
    )
    assert doc["name"] == "Paris" and doc["address"]["city"] == "Paris"


@pytest.mark.parametrize(
    ("shape", "where"),
    [
        ({"required": {"a": "str"}}, "shape.required.a"),
        ({"mandatory": {}}, "unknown keys"),
        ({"required": ["a"]}, "shape.required"),
        ({"required": {"a": ["string", "integer"]}}, "one-element list"),
        ({"optional": {"a": {"required": {"b": "float"}}}}, "shape.optional.a.required.b"),
        ("string", "expected a mapping"),
    ],
)
def test_bad_shapes_name_the_bad_part(shape: object, where: str) -> None:
    choices = Choices(seed=0)
    with pytest.raises(InvalidArgument, match=where.replace(".", r"\.")):
        json_documents(choices, shape=shape)  # type: ignore[arg-type]
    assert choices.choices == []


def test_parts_are_labelled() -> None:
    choices = Choices(seed=2)
    json_documents(choices, shape=SHAPE)
    counts = choices.recording().label_counts()
    assert counts[labels.JSON_DOCUMENT] == len(choices.choices)
    assert counts[labels.JSON_OBJECT] > 0 and counts[labels.JSON_VALUE] > 0
    assert counts[labels.DATE] > 0
