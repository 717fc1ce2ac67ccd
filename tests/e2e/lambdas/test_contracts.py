"""Crafted worlds for the contracts (nikoshen) benchmark: one test per decision-point arm."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC
from types import ModuleType
from typing import Any

import pytest
from botocore.exceptions import ClientError

BUCKET = "contracts-uploads"
TABLE = "Contracts"

EventT = Callable[..., dict[str, Any]]


@pytest.fixture
def world(aws: Any) -> Any:
    aws.s3.create_bucket(Bucket=BUCKET)
    aws.create_table(TABLE, ("contract_code", "S"), ("upload_date", "S"))
    return aws


@pytest.fixture
def handler(world: Any, load_handler: Callable[[str], ModuleType]) -> ModuleType:
    """Imported after the table exists: the module builds its clients at import time."""
    return load_handler("contracts.handler")


def put_contract(world: Any, key: str) -> str:
    """Upload an object and return its LastModified the way the handler formats it."""
    world.s3.put_object(Bucket=BUCKET, Key=key, Body=b"%PDF-1.4 contract")
    modified = world.s3.head_object(Bucket=BUCKET, Key=key)["LastModified"]
    return modified.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def add_item(world: Any, code: str, upload_date: str) -> None:
    world.dynamodb.put_item(
        TableName=TABLE,
        Item={"contract_code": {"S": code}, "upload_date": {"S": upload_date}},
    )


def items_for(world: Any, code: str) -> list[dict[str, str]]:
    response = world.dynamodb.query(
        TableName=TABLE,
        KeyConditionExpression="contract_code = :c",
        ExpressionAttributeValues={":c": {"S": code}},
    )
    return [{name: value["S"] for name, value in item.items()} for item in response["Items"]]


def test_new_contract_is_recorded(
    world: Any, handler: ModuleType, s3_event: EventT, caplog: pytest.LogCaptureFixture
) -> None:
    key = "contracts/2024/ACME-17.v2.pdf"
    uploaded = put_contract(world, key)
    add_item(world, "OTHER", "2020-01-01")  # another code never counts
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, key), None) == "SUCCESS"
    assert items_for(world, "ACME-17.v2") == [
        {
            "contract_code": "ACME-17.v2",
            "upload_date": uploaded,
            "bucket_name": BUCKET,
            "object_key": key,
        }
    ]
    assert "put item succeeded" in caplog.text


@pytest.mark.parametrize(
    "recorded",
    [
        pytest.param("2019-05-04", id="iso-date"),
        pytest.param("2019-05-04T10:11:12", id="iso-datetime"),
        pytest.param("2019-05-04T10:11:12+02:00", id="iso-datetime-offset"),
        pytest.param("2019-05-04 10:11:12", id="space-datetime"),
        pytest.param("1557000000000", id="epoch-millis"),
    ],
)
def test_existing_contract_is_not_recorded_again(
    world: Any,
    handler: ModuleType,
    s3_event: EventT,
    caplog: pytest.LogCaptureFixture,
    recorded: str,
) -> None:
    put_contract(world, "ACME.pdf")
    add_item(world, "ACME", recorded)
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, "ACME.pdf"), None) == "SUCCESS"
    assert items_for(world, "ACME") == [{"contract_code": "ACME", "upload_date": recorded}]
    assert "item already exists" in caplog.text
    assert "put item succeeded" not in caplog.text


@pytest.mark.parametrize(
    "recorded",
    [
        pytest.param("yesterday", id="words"),
        pytest.param("04/05/2019", id="us-date"),
        pytest.param("9" * 40, id="millis-out-of-range"),
        pytest.param("\u0661\u0662\u0663", id="non-ascii-digits"),
    ],
)
def test_unreadable_upload_dates_do_not_count(
    world: Any,
    handler: ModuleType,
    s3_event: EventT,
    caplog: pytest.LogCaptureFixture,
    recorded: str,
) -> None:
    uploaded = put_contract(world, "ACME.pdf")
    add_item(world, "ACME", recorded)
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, "ACME.pdf"), None) == "SUCCESS"
    dates = sorted(item["upload_date"] for item in items_for(world, "ACME"))
    assert dates == sorted([recorded, uploaded])
    assert "unreadable upload_date" in caplog.text
    assert "put item succeeded" in caplog.text


def test_one_readable_item_is_enough(
    world: Any, handler: ModuleType, s3_event: EventT, caplog: pytest.LogCaptureFixture
) -> None:
    put_contract(world, "ACME.pdf")
    add_item(world, "ACME", "garbage")
    add_item(world, "ACME", "2019-05-04")
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        handler.lambda_handler(s3_event(BUCKET, "ACME.pdf"), None)
    assert len(items_for(world, "ACME")) == 2
    assert "item already exists" in caplog.text


@pytest.mark.parametrize("key", ["README", "drafts.v1/README"])
def test_base_name_without_extension_raises(
    world: Any,
    handler: ModuleType,
    s3_event: EventT,
    caplog: pytest.LogCaptureFixture,
    key: str,
) -> None:
    put_contract(world, key)
    with caplog.at_level(logging.ERROR, logger=handler.__name__), pytest.raises(ValueError):
        handler.lambda_handler(s3_event(BUCKET, key), None)
    assert "cannot derive a contract code" in caplog.text


def test_empty_contract_code_is_rejected_by_dynamodb(
    world: Any, handler: ModuleType, s3_event: EventT
) -> None:
    """`.pdf` yields the empty code; querying an empty key value is a ValidationException."""
    put_contract(world, "contracts/.pdf")
    with pytest.raises(ClientError, match="ValidationException"):
        handler.lambda_handler(s3_event(BUCKET, "contracts/.pdf"), None)


def test_key_is_used_raw(world: Any, handler: ModuleType, s3_event: EventT) -> None:
    """The event's key is not URL-decoded, so `my contract.pdf` arrives as `my+contract.pdf`."""
    put_contract(world, "my contract.pdf")
    with pytest.raises(ClientError, match="NoSuchKey"):
        handler.lambda_handler(s3_event(BUCKET, "my contract.pdf"), None)
    assert items_for(world, "my+contract") == []
