"""S3 -> DynamoDB loader for gzip-compressed CSV files.

Each row becomes an item `{Id, Date}` in the table named by `TABLE_NAME`. The handler never
raises: whatever goes wrong, it returns a report whose `status` says whether the file loaded.
"""

from __future__ import annotations

import csv
import gzip
import io
import logging
import os
import time
import urllib.parse
from datetime import UTC, datetime
from typing import Any

import boto3

logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)

BATCH_SIZE = 25  # the BatchWriteItem limit
DATE_FORMAT = "%Y-%m-%d"
DATE_LENGTH = len("YYYY-MM-DD")


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    started = time.monotonic()
    report: dict[str, Any] = {"status": False, "file_size": 0, "execution_time": 0.0}
    try:
        s3_record = event["Records"][0]["s3"]
        bucket = s3_record["bucket"]["name"]
        key = urllib.parse.unquote_plus(s3_record["object"]["key"])
        table_name = os.environ["TABLE_NAME"]

        s3 = boto3.client("s3")
        dynamodb = boto3.client("dynamodb")

        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        report["file_size"] = len(body)
        if not body:
            raise ValueError(f"s3://{bucket}/{key} is empty")
        text = gzip.decompress(body).decode("utf-8")
        items = [to_item(row) for row in csv.reader(io.StringIO(text))]
        write_items(dynamodb, table_name, items)
        logger.info("loaded %d rows from s3://%s/%s into %s", len(items), bucket, key, table_name)
        report["status"] = True
    except Exception:
        logger.exception("loading the CSV failed")
    report["execution_time"] = round(time.monotonic() - started, 3)
    return report


def to_item(row: list[str]) -> dict[str, dict[str, str]]:
    """One CSV row -> a DynamoDB item; the date (a `YYYY-MM-DD` prefix) is stored as epoch seconds."""
    if len(row) < 2:
        raise ValueError(f"row {row!r} needs an id and a date")
    taken = datetime.strptime(row[1][:DATE_LENGTH], DATE_FORMAT).replace(tzinfo=UTC)
    return {"Id": {"S": row[0]}, "Date": {"N": str(int(taken.timestamp()))}}


def write_items(dynamodb: Any, table_name: str, items: list[dict[str, Any]]) -> None:
    """Write in batches of 25, resending whatever DynamoDB reports as unprocessed."""
    for start in range(0, len(items), BATCH_SIZE):
        batch = items[start : start + BATCH_SIZE]
        pending = {table_name: [{"PutRequest": {"Item": item}} for item in batch]}
        while pending:
            response = dynamodb.batch_write_item(RequestItems=pending)
            pending = response.get("UnprocessedItems", {})
