"""Record an uploaded contract in DynamoDB unless the same contract is already recorded.

The contract code is the object's base name without its extension; an existing item counts
only when its `upload_date` is a date we can read.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import boto3
from boto3.dynamodb.conditions import Key

logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)

TABLE_NAME = "Contracts"
UPLOAD_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"

s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(TABLE_NAME)


def lambda_handler(event: dict[str, Any], context: Any) -> str:
    s3_record = event["Records"][0]["s3"]
    bucket = s3_record["bucket"]["name"]
    key = s3_record["object"]["key"]
    try:
        code = contract_code(key)
    except ValueError:
        logger.exception("cannot derive a contract code from %r", key)
        raise

    obj = s3.get_object(Bucket=bucket, Key=key)
    upload_date = obj["LastModified"].astimezone(UTC).strftime(UPLOAD_DATE_FORMAT)

    response = table.query(KeyConditionExpression=Key("contract_code").eq(code))
    recorded = []
    for item in response["Items"]:
        when = parse_upload_date(item["upload_date"])
        if when is None:
            logger.info(
                "skipping item %s with unreadable upload_date %r", code, item["upload_date"]
            )
            continue
        recorded.append(when)

    if not recorded:
        table.put_item(
            Item={
                "contract_code": code,
                "upload_date": upload_date,
                "bucket_name": bucket,
                "object_key": key,
            }
        )
        logger.info("put item succeeded: %s uploaded %s", code, upload_date)
    else:
        logger.info("item already exists: %s (%d recorded uploads)", code, len(recorded))
    return "SUCCESS"


def contract_code(key: str) -> str:
    """`contracts/2024/ACME-17.pdf` -> `ACME-17`; a base name without a `.` has no code."""
    base_name = key.rpartition("/")[2]
    stem, dot, _extension = base_name.rpartition(".")
    if not dot:
        raise ValueError(f"object key {key!r} has no extension")
    return stem


def parse_upload_date(value: str) -> datetime | None:
    """Epoch milliseconds (all digits), an ISO date or date-time, or `YYYY-MM-DD HH:MM:SS`."""
    try:
        if value.isascii() and value.isdigit():
            return datetime.fromtimestamp(int(value) / 1000, tz=UTC)
        return datetime.fromisoformat(value)
    except (ValueError, OverflowError, OSError):
        return None
