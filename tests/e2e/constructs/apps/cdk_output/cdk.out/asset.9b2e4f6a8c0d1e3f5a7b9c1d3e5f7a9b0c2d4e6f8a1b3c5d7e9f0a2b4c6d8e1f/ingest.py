"""Ingest meter-reading uploads: each CSV dropped under readings/ is summarised into the
readings table (rows accepted, total kWh) for the billing run."""

import csv
import io
import json
import math
import os
from decimal import Decimal

import boto3

s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])

MAX_KWH = 1_000_000  # a single reading above this is a meter fault, not consumption


def _readings(text):
    accepted, total = 0, 0.0
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 3:
            continue
        try:
            kwh = float(row[2])
        except ValueError:
            continue  # the header, or a garbled line
        if math.isfinite(kwh) and 0 <= kwh <= MAX_KWH:
            accepted += 1
            total += kwh
    return accepted, total


def handler(event, context):
    summaries = []
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = record["s3"]["object"]["key"]
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError:
            print(json.dumps({"skipped": key, "reason": "not UTF-8"}))
            continue
        accepted, total = _readings(text)
        item = {
            "objectKey": key,
            "rows": accepted,
            "totalKwh": Decimal(str(round(total, 3))),
            "bytes": len(body),
        }
        table.put_item(Item=item)
        summaries.append({"key": key, "rows": accepted})
    return {"summaries": summaries}
