"""Parse every row of `<tick>.csv`, then write the prices to `StockPrice` in batches of 25."""

from __future__ import annotations

import csv
import io
import logging
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)

TABLE_NAME = "StockPrice"
BATCH_SIZE = 25  # the most items one BatchWriteItem call accepts
DATE_FORMAT = "%m/%d/%Y"

# Created once per container, as the Lambda docs recommend.
s3 = boto3.client("s3")
dynamodb = boto3.resource("dynamodb")


def to_epoch_seconds(text: str) -> int:
    """`MM/DD/YYYY` at midnight UTC; raises ValueError for anything else."""
    return int(datetime.strptime(text, DATE_FORMAT).replace(tzinfo=UTC).timestamp())


def parse_row(tick: str, cdate: int, fields: list[str]) -> dict[str, Any]:
    """One item; a missing column raises IndexError, a bad number InvalidOperation."""
    return {
        "Tick": tick,
        "cdate": cdate,
        "Open": Decimal(fields[1]),
        "High": Decimal(fields[2]),
        "Low": Decimal(fields[3]),
        "Close": Decimal(fields[4]),
        "AdjClose": Decimal(fields[5]),
        "Volume": Decimal(fields[6]),
    }


def write_batch(items: list[dict[str, Any]]) -> None:
    """Retry whatever DynamoDB leaves unprocessed (throttling) until nothing remains."""
    request = {TABLE_NAME: [{"PutRequest": {"Item": item}} for item in items]}
    while request:
        response = dynamodb.batch_write_item(RequestItems=request)
        request = response.get("UnprocessedItems")


def lambda_handler(event: dict[str, Any], context: Any) -> str:
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = record["s3"]["object"]["key"]
    tick = key[: key.rindex(".")]

    response = s3.get_object(Bucket=bucket, Key=key)
    text = response["Body"].read().decode("utf-8", errors="replace")
    rows = csv.reader(io.StringIO(text, newline=""), quotechar="'")
    next(rows, None)  # header

    items = []
    for fields in rows:
        try:
            cdate = to_epoch_seconds(fields[0])
        except ValueError:
            logger.exception("bad date %r in %s; nothing written", fields[0], key)
            return "SUCCESS"
        items.append(parse_row(tick, cdate, fields))

    for start in range(0, len(items), BATCH_SIZE):
        write_batch(items[start : start + BATCH_SIZE])
    logger.info("loaded %d prices for %s", len(items), tick)
    return "SUCCESS"
