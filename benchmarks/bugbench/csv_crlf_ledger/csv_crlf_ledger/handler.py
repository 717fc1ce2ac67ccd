"""Bank statements: `account,amount,booked_on` lines (no quoting, the bank's own format)
become ledger entries."""

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
table = boto3.resource("dynamodb").Table(os.environ["LEDGER_TABLE"])
DATE = re.compile(r"\d{2}/\d{2}/\d{4}")


def parse_line(line: str) -> dict | None:
    fields = line.split(",")
    if len(fields) != 3 or not DATE.match(fields[2]):
        return None
    try:
        amount = Decimal(fields[1])
    except InvalidOperation:
        return None
    booked = datetime.strptime(fields[2], "%d/%m/%Y")
    return {"account": fields[0], "amount": amount, "booked_on": booked.date().isoformat()}


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    text = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8", errors="replace")
    posted = 0
    for number, line in enumerate(text.split("\n")[1:], start=2):
        entry = parse_line(line)
        if entry is None or not entry["account"] or not entry["amount"].is_finite():
            continue
        entry["entry"] = f"{key}#{number}"
        table.put_item(Item=entry)
        posted += 1
    logger.info("%s: %d entries posted", key, posted)
    return {"posted": posted}
