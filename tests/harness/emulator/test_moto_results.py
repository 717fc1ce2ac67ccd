"""moto's result data taken as the answer: what `json_answer` takes equals what moto's
serializer writes and botocore's parser reads back, and what it does not take it leaves
to them."""

from __future__ import annotations

import json
from typing import Any

import botocore.session
import pytest
from botocore.parsers import JSONParser

from lambdafuzz.harness.emulator.moto_results import AnsweredBody, answered_parser, json_answer

_MODEL = botocore.session.get_session().get_service_model("dynamodb")


def _output(operation: str) -> Any:
    return _MODEL.operation_model(operation).output_shape


def _parsed(operation: str, answer: dict[str, Any]) -> Any:
    return JSONParser()._handle_json_body(json.dumps(answer).encode(), _output(operation))


@pytest.mark.parametrize(
    ("operation", "result"),
    [
        ("GetItem", {}),
        ("GetItem", {"Item": {"pk": {"S": "p1"}, "n": {"N": "1"}, "ok": {"BOOL": True}}}),
        (
            "GetItem",
            {
                "Item": {
                    "m": {"M": {"x": {"L": [{"S": "a"}, {"NULL": True}, {"SS": ["b", "c"]}]}}},
                    "ns": {"NS": ["1", "2.5"]},
                },
                "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5},
            },
        ),
        (
            "Query",
            {
                "Items": [{"pk": {"S": "p"}, "sk": {"N": "1"}}, {"pk": {"S": "p"}}],
                "Count": 2,
                "ScannedCount": 2,
                "LastEvaluatedKey": {"pk": {"S": "p"}},
            },
        ),
        ("PutItem", {"Attributes": {"pk": {"S": "ü"}}}),
        ("BatchWriteItem", {"UnprocessedItems": {}, "ConsumedCapacity": []}),
    ],
)
def test_a_plain_answer_is_what_the_parser_reads_back(operation: str, result: Any) -> None:
    answer = json_answer(_output(operation), result)
    assert answer == _parsed(operation, answer) == result


def test_members_come_in_the_shape_s_order_as_moto_s_serializer_writes_them() -> None:
    result = {"ScannedCount": 1, "Items": [], "Count": 0}
    answer = json_answer(_output("Query"), result)
    assert list(answer) == ["Items", "Count", "ScannedCount"]  # the output shape's order


def test_an_integer_capacity_becomes_the_float_the_serializer_writes() -> None:
    answer = json_answer(_output("GetItem"), {"ConsumedCapacity": {"CapacityUnits": 1}})
    assert answer == {"ConsumedCapacity": {"CapacityUnits": 1.0}}
    assert json.dumps(answer) == '{"ConsumedCapacity": {"CapacityUnits": 1.0}}'


@pytest.mark.parametrize(
    "result",
    [
        {"Item": {"b": {"B": b"\x00"}}},  # a blob: base64 on the way, bytes on the way back
        {"Item": {"n": {"N": 1}}},  # a number where the shape has a string
        {"item": {"pk": {"S": "p"}}},  # a key the shape does not name
        {"Item": {"pk": None}},  # a map value of nothing
        {"Item": {1: {"S": "p"}}},  # a key that is no string
        {"ConsumedCapacity": {"CapacityUnits": True}},  # a boolean where a number goes
    ],
)
def test_anything_else_is_left_to_moto_s_serializer(result: Any) -> None:
    assert json_answer(_output("GetItem"), result) is None


def test_a_list_of_nothing_is_left_to_moto_s_serializer() -> None:
    assert json_answer(_output("Query"), {"Items": [None]}) is None
    assert json_answer(_output("Query"), {"Count": 1}) == {"Count": 1}


def test_the_parser_takes_the_carried_answer_and_its_own_metadata() -> None:
    parser = answered_parser(JSONParser)()
    body = AnsweredBody(b'{"Item": {"pk": {"S": "text"}}}')
    body.answer = {"Item": {"pk": {"S": "carried"}}}
    response = {"status_code": 200, "headers": {"x-amzn-requestid": "r1"}, "body": body}
    parsed = parser.parse(response, _output("GetItem"))
    assert parsed["Item"] == {"pk": {"S": "carried"}}
    assert parsed["ResponseMetadata"]["RequestId"] == "r1"
    assert parsed["ResponseMetadata"]["HTTPStatusCode"] == 200
    # a body without an answer (a handler replaced it) is read as text
    plain = {**response, "body": b'{"Item": {"pk": {"S": "text"}}}'}
    assert parser.parse(plain, _output("GetItem"))["Item"] == {"pk": {"S": "text"}}


def test_other_protocols_keep_their_parser() -> None:
    from botocore.parsers import QueryParser

    assert answered_parser(QueryParser) is QueryParser
