"""Till price lists: each CSV row (sku, description, price) updates the price table."""

import csv
import io
import logging
import os
import urllib.parse
from decimal import Decimal, InvalidOperation

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["PRICES_TABLE"])


def read_rows(data: bytes) -> list[dict]:
    text = data.decode("utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    rows = read_rows(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    updated = skipped = 0
    with table.batch_writer() as batch:
        for row in rows:
            sku = (row.get("sku") or "").strip()
            try:
                price = Decimal((row.get("price") or "").strip())
            except InvalidOperation:
                skipped += 1
                continue
            if not sku or not price.is_finite() or price < 0:
                skipped += 1
                continue
            description = (row.get("description") or "").strip()[:200]
            batch.put_item(Item={"sku": sku, "price": price, "description": description})
            updated += 1
    logger.info("%s: %d prices updated, %d rows skipped", key, updated, skipped)
    return {"updated": updated, "skipped": skipped}
