"""Daily meter reports: first line the day (YYYY-MM-DD), then `meter_id reading` lines."""

import logging
import os
import re
import urllib.parse
from datetime import datetime
from decimal import Decimal, InvalidOperation

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["READINGS_TABLE"])
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def report_day(first_line: str) -> str:
    text = first_line.strip()
    if not DAY.search(text):
        raise LookupError("no report date")
    return datetime.strptime(text, "%Y-%m-%d").date().isoformat()


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    text = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8", errors="replace")
    lines = text.splitlines()
    if not lines:
        return {"readings": 0}
    try:
        day = report_day(lines[0])
    except LookupError:
        logger.warning("%s has no report date, ignored", key)
        return {"readings": 0}
    stored = 0
    for line in lines[1:]:
        parts = line.split()
        if len(parts) != 2:
            continue
        try:
            reading = Decimal(parts[1])
        except InvalidOperation:
            continue
        if reading.is_finite():
            table.put_item(Item={"meter_id": parts[0], "day": day, "kwh": reading})
            stored += 1
    return {"readings": stored, "day": day}
