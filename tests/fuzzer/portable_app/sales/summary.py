"""Daily sales summary: an uploaded CSV of orders (a header, then one order per line)
becomes one summary item in DynamoDB.

The planted bug: a file with a header and no orders divides zero by zero
(`decimal.InvalidOperation`).
"""

from __future__ import annotations

import csv
import io
import os
import urllib.parse
from decimal import Decimal, InvalidOperation

import boto3

s3 = boto3.client("s3")
summaries = boto3.resource("dynamodb").Table(os.environ["SUMMARY_TABLE"])


def lambda_handler(event, context):
    record = event["Records"][0]["s3"]
    bucket = record["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    try:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    except s3.exceptions.NoSuchKey:
        return {"statusCode": 400, "body": f"{key} is gone"}  # deleted before we ran
    try:
        rows = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error):
        return {"statusCode": 400, "body": "not a CSV file"}
    if not rows:
        return {"statusCode": 400, "body": "empty file"}
    orders = rows[1:]
    total = sum((_amount(row) for row in orders), Decimal(0))
    average = total / len(orders)
    summaries.put_item(
        Item={"report": key, "orders": len(orders), "total": total, "average": average}
    )
    return {"statusCode": 200, "body": f"{len(orders)} orders"}


def _amount(row: list[str]) -> Decimal:
    """The last column that reads as an amount (0 when none does)."""
    for cell in reversed(row):
        try:
            return Decimal(cell.strip())
        except InvalidOperation:
            continue
    return Decimal(0)
