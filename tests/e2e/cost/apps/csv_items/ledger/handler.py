"""Store each line of an uploaded ledger CSV as an item keyed by (file, line number).

Each line is written with its own PutItem: one request per line, where BatchWriteItem
would take 25 lines a request.
"""

from __future__ import annotations

import csv
import io
import os
import urllib.parse
from typing import Any

import boto3


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    record = event["Records"][0]["s3"]
    bucket = record["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    s3 = boto3.client("s3")
    try:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    except s3.exceptions.NoSuchKey:  # deleted before the notification arrived
        return {"skipped": key}
    table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])
    stored = 0
    for number, row in enumerate(
        csv.reader(io.StringIO(body.decode("utf-8", "replace"), newline=""))
    ):
        if not row:
            continue
        item = {"Source": key, "Line": number, "Fields": [cell[:200] for cell in row]}
        table.put_item(Item=item)
        stored += 1
    return {"stored": stored}
