"""moto's speed-ups change no answer: responses serialized with the remembered member names
equal moto's own, and request ids keep their alphabet, length and seeded determinism."""

from __future__ import annotations

import datetime
import json
import os
import string
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.core import serialize
from moto.core.model import Shape, ShapeResolver
from moto.moto_api._internal import mock_random

from lambdafuzz.harness.emulator.moto_speedups import memoize_possible_keys, one_call_random_strings
from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS

REGION = "eu-west-1"


@pytest.fixture(autouse=True)
def _fake_credentials(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in FAKE_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    yield


def _plain(value: Any) -> Any:
    """A response without what changes from run to run (timestamps, request metadata)."""
    if isinstance(value, dict):
        return {
            k: _plain(v)
            for k, v in value.items()
            if k != "ResponseMetadata"
            and "Timestamp" not in k  # SQS's epoch-millisecond attributes
            and not isinstance(v, datetime.datetime)
        }
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _error(call: Any, **kwargs: Any) -> dict[str, Any]:
    try:
        call(**kwargs)
    except ClientError as exc:
        return {"code": exc.response["Error"]["Code"], "message": str(exc)}
    raise AssertionError("the call was expected to fail")


def _conversation() -> list[Any]:
    """DynamoDB, SQS and SNS calls whose answers go through moto's response serializer:
    nested structures, lists, maps, errors and renamed members."""
    answers: list[Any] = []
    with mock_aws():
        mock_random.seed(7)
        ddb = boto3.client("dynamodb", region_name=REGION)
        answers.append(
            ddb.create_table(
                TableName="grades",
                KeySchema=[
                    {"AttributeName": "student", "KeyType": "HASH"},
                    {"AttributeName": "course", "KeyType": "RANGE"},
                ],
                AttributeDefinitions=[
                    {"AttributeName": "student", "AttributeType": "S"},
                    {"AttributeName": "course", "AttributeType": "S"},
                    {"AttributeName": "term", "AttributeType": "N"},
                ],
                GlobalSecondaryIndexes=[
                    {
                        "IndexName": "by-term",
                        "KeySchema": [{"AttributeName": "term", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                ],
                BillingMode="PAY_PER_REQUEST",
            )
        )
        for i in range(4):
            item = {
                "student": {"S": f"s{i % 2}"},
                "course": {"S": f"c{i}"},
                "term": {"N": str(i % 3)},
                "marks": {"L": [{"N": str(i)}, {"M": {"late": {"BOOL": i % 2 == 0}}}]},
                "tags": {"SS": ["a", f"t{i}"]},
            }
            answers.append(ddb.put_item(TableName="grades", Item=item, ReturnValues="ALL_OLD"))
        key = {"student": {"S": "s0"}, "course": {"S": "c0"}}
        answers.append(ddb.get_item(TableName="grades", Key=key, ReturnConsumedCapacity="TOTAL"))
        answers.append(
            ddb.update_item(
                TableName="grades",
                Key=key,
                UpdateExpression="SET term = term + :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
                ReturnValues="ALL_NEW",
            )
        )
        answers.append(
            ddb.query(
                TableName="grades",
                KeyConditionExpression="student = :s",
                ExpressionAttributeValues={":s": {"S": "s1"}},
            )
        )
        answers.append(ddb.scan(TableName="grades", Limit=3))
        answers.append(
            ddb.batch_get_item(
                RequestItems={"grades": {"Keys": [key, {**key, "course": {"S": "c2"}}]}}
            )
        )
        answers.append(ddb.describe_table(TableName="grades"))
        answers.append(ddb.list_tables())
        answers.append(
            _error(
                ddb.put_item,
                TableName="grades",
                Item={"student": {"S": "s0"}, "course": {"S": "c0"}},
                ConditionExpression="attribute_not_exists(student)",
            )
        )
        answers.append(_error(ddb.get_item, TableName="missing", Key=key))

        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "5"})["QueueUrl"]
        answers.append(
            sqs.send_message(
                QueueUrl=url,
                MessageBody=json.dumps({"job": 1}),
                MessageAttributes={"kind": {"DataType": "String", "StringValue": "grade"}},
            )
        )
        answers.append(
            sqs.send_message_batch(
                QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(3)]
            )
        )
        received = sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=10,
            MessageAttributeNames=["All"],
            AttributeNames=["All"],
        )
        answers.append(received)
        answers.append(
            sqs.delete_message_batch(
                QueueUrl=url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(received["Messages"])
                ],
            )
        )
        answers.append(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"]))
        answers.append(sqs.list_queues())
        answers.append(_error(sqs.get_queue_url, QueueName="nope"))

        sns = boto3.client("sns", region_name=REGION)
        arn = sns.create_topic(Name="grades")["TopicArn"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        answers.append(
            sns.subscribe(
                TopicArn=arn, Protocol="sqs", Endpoint=queue_arn["Attributes"]["QueueArn"]
            )
        )
        answers.append(sns.publish(TopicArn=arn, Message="hello", Subject="s"))
        answers.append(sns.list_subscriptions_by_topic(TopicArn=arn))
        answers.append(sns.get_topic_attributes(TopicArn=arn))
        answers.append(_error(sns.publish, TopicArn=arn + "x", Message="m"))
    return [_plain(a) for a in answers]


#: What `memoize_possible_keys` replaces: the picker's names and the serializer's lookup.
_REPLACED = (
    (serialize.XFormedAttributePicker, "get_possible_keys"),
    (serialize.ResponseSerializer, "get_value"),
)


class _Switch:
    """moto's own member lookup, or the remembered names, switched within one test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        memoize_possible_keys()
        self.monkeypatch = monkeypatch
        self.memoized = [(cls, name, getattr(cls, name)) for cls, name in _REPLACED]
        self.memo = serialize.XFormedAttributePicker.get_possible_keys.lambdafuzz_memo

    def mokos_own(self) -> None:
        for cls, name, replaced in self.memoized:
            self.monkeypatch.setattr(cls, name, replaced.lambdafuzz_original)

    def remembered(self) -> None:
        for cls, name, replaced in self.memoized:
            self.monkeypatch.setattr(cls, name, replaced)


def test_remembered_member_names_serialize_what_moto_serializes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    switch = _Switch(monkeypatch)
    switch.mokos_own()
    mokos_own = _conversation()

    switch.remembered()
    memo = switch.memo
    memo.clear()
    remembered = _conversation()
    assert len(memo) > 50  # the answers above did go through the memo
    assert remembered == mokos_own
    again = _conversation()  # now every name comes from the memo
    assert again == mokos_own


def test_memoizing_twice_keeps_one_memo() -> None:
    memoize_possible_keys()
    first = serialize.XFormedAttributePicker.get_possible_keys
    memoize_possible_keys()
    assert serialize.XFormedAttributePicker.get_possible_keys is first


def test_request_ids_keep_their_alphabet_length_and_seed() -> None:
    one_call_random_strings()
    mock_random.seed(3)
    ids = [mock_random.get_random_string(52) for _ in range(200)]
    mock_random.seed(3)
    assert [mock_random.get_random_string(52) for _ in range(200)] == ids
    assert len(set(ids)) == 200
    assert all(len(i) == 52 for i in ids)
    letters_and_digits = set(string.ascii_letters + string.digits)
    assert set("".join(ids)) == letters_and_digits  # every character is drawn, none else
    letters = {mock_random.get_random_string(30, include_digits=False) for _ in range(50)}
    assert set("".join(letters)) <= set(string.ascii_letters)
    lower = mock_random.get_random_string(40, lower_case=True)
    assert lower == lower.lower() and len(lower) == 40


def _picker_reads() -> Any:
    """`read(result, key, shape)` through the picker (the remembered names)."""
    picker = serialize.XFormedAttributePicker()

    def read(result: Any, key: str, shape: Shape) -> Any:
        return picker(serialize.AttributePickerContext(obj=result, key=key, shape=shape))

    return read


def _serializer_reads() -> Any:
    """`read(result, key, shape)` through a response serializer's member lookup (the
    names remembered, looked up without the picker)."""
    from moto.core.utils import get_service_model

    operation = get_service_model("dynamodb").operation_model("GetItem")
    serializer = serialize.JSONSerializer(
        operation_model=operation, value_picker=serialize.XFormedAttributePicker()
    )
    return serializer.get_value


READERS = pytest.mark.parametrize("reader", [_picker_reads, _serializer_reads])


@READERS
def test_the_same_member_name_under_other_shapes_is_looked_up_under_their_names(
    reader: Any,
) -> None:
    """Two members called alike whose shapes serialize them under other names (a query
    protocol's `locationName`): each is read under its own name, memo or not."""
    memoize_possible_keys()
    read = reader()
    result = {"alpha": 1, "beta": 2}
    shapes = [
        Shape("First", {"type": "string", "locationName": "alpha"}),
        Shape("Second", {"type": "string", "locationName": "beta"}),
    ]
    for _ in range(2):  # the second time from the memo
        assert [read(result, "Value", s) for s in shapes] == [1, 2]


class Value:
    """A result object whose class name prefixes a member's (moto's `ClassPrefixAlias`)."""

    Limit = 5


class _Aliases:
    serialization_aliases = {"ValueLimit": "gamma"}


@READERS
def test_the_same_member_on_another_kind_of_result_is_looked_up_its_way(reader: Any) -> None:
    """The names depend on the result's class and on its `Meta` (moto's
    `serialization_aliases`), even one an object carries itself."""
    memoize_possible_keys()
    read = reader()
    shape = Shape("Plain", {"type": "string"})
    renamed = Value()
    renamed.Meta = _Aliases  # type: ignore[attr-defined]
    renamed.gamma = 3  # type: ignore[attr-defined]
    for _ in range(2):  # the second time from the memo
        assert read({"ValueLimit": 1}, "ValueLimit", shape) == 1
        assert read({"ValueLimit": 1, "Other": 2}, "Other", shape) == 2  # one shape, 2 members
        assert read({"Other": 2}, "ValueLimit", shape) is None  # found under no name
        assert read(Value(), "ValueLimit", shape) == 5
        assert read(renamed, "ValueLimit", shape) == 3


def test_the_differential_sequences_answer_alike_with_remembered_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast-path differential suite's seeded sequences (resource APIs, paginators,
    waiters, errors) on moto's full path: equal outcomes and state with moto's own member
    lookup and with the memo (`benchmarks/aws_path.py`'s generator; 2,000 sequences gave
    0 differences when this was written)."""
    from tests.harness.emulator.fast_aws_sequences import Env, run_sequence

    switch = _Switch(monkeypatch)
    saved = dict(os.environ)
    env = Env()
    try:
        for seed in range(60):
            switch.mokos_own()
            mokos_own = run_sequence(env, seed, fast=False)
            switch.remembered()
            assert run_sequence(env, seed, fast=False) == mokos_own, f"sequence {seed}"
            assert run_sequence(env, seed, fast=False) == mokos_own, f"sequence {seed}, again"
    finally:
        env.fast.uninstall()
        env.backend.stop()
        os.environ.clear()
        os.environ.update(saved)
    assert switch.memo


def test_a_remembered_member_is_read_without_the_picker(monkeypatch: pytest.MonkeyPatch) -> None:
    memoize_possible_keys()
    read = _serializer_reads()
    shape = Shape("Plain", {"type": "string"})
    assert read({"ValueLimit": 1}, "ValueLimit", shape) == 1  # names worked out, remembered

    def unused(self: Any, context: Any) -> Any:
        raise AssertionError("the picker was asked again")

    monkeypatch.setattr(serialize.XFormedAttributePicker, "__call__", unused)
    assert read({"ValueLimit": 7}, "ValueLimit", shape) == 7


@READERS
def test_a_member_under_another_structure_is_looked_up_its_way(reader: Any) -> None:
    """The structure holding a member decides a shortened name (moto's `ShapePrefixAlias`:
    `ItemCount` of an `Item` is also looked up as `Count`)."""
    memoize_possible_keys()
    read = reader()
    resolver = ShapeResolver(
        {
            "Item": {"type": "structure", "members": {"ItemCount": {"shape": "Number"}}},
            "Other": {"type": "structure", "members": {"ItemCount": {"shape": "Number"}}},
            "Number": {"type": "integer"},
        }
    )
    member = Shape("Number", {"type": "integer"})
    for _ in range(2):  # the second time from the memo
        member.parent = resolver.get_shape_by_name("Item")  # type: ignore[attr-defined]
        assert read({"Count": 5}, "ItemCount", member) == 5
        member.parent = resolver.get_shape_by_name("Other")  # type: ignore[attr-defined]
        assert read({"Count": 5}, "ItemCount", member) is None


def test_undone_speedups_leave_moto_as_it_was_and_apply_again() -> None:
    import moto.core.utils as core_utils
    import moto.sqs.models as sqs_models
    from moto.moto_api._internal.moto_random import MotoRandom

    from lambdafuzz.harness.emulator.moto_speedups import speed_up_moto, undo_moto_speedups

    speed_up_moto()
    fast = (
        core_utils.camelcase_to_underscores,
        sqs_models.generate_receipt_handle,
        serialize.ResponseSerializer.get_value,
        MotoRandom.get_random_string,
    )
    assert hasattr(fast[0], "cache_info")
    undo_moto_speedups()
    try:
        assert not hasattr(core_utils.camelcase_to_underscores, "cache_info")
        assert core_utils.camelcase_to_underscores("GetItem") == "get_item"
        assert sqs_models.generate_receipt_handle is not fast[1]
        assert not hasattr(serialize.ResponseSerializer.get_value, "lambdafuzz_original")
        assert not hasattr(serialize.XFormedAttributePicker.get_possible_keys, "lambdafuzz_memo")
        assert not getattr(MotoRandom.get_random_string, "lambdafuzz_fast", False)
    finally:
        speed_up_moto()
    again = (
        core_utils.camelcase_to_underscores,
        sqs_models.generate_receipt_handle,
        serialize.ResponseSerializer.get_value,
        MotoRandom.get_random_string,
    )
    assert again[0] is fast[0]  # the same memo, kept across the undo
    assert again[1] is fast[1]
    assert hasattr(again[2], "lambdafuzz_original") and again[3].lambdafuzz_fast
