"""Expense receipts: every uploaded scan is registered with its size and content type."""

import logging
import os
import urllib.parse

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["RECEIPTS_TABLE"])


def object_key(record: dict) -> str:
    # keys arrive URL-encoded ("%2F" for "/", "%C3%A9" for "é")
    return urllib.parse.unquote(record["s3"]["object"]["key"])


def lambda_handler(event, context):
    registered = 0
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = object_key(record)
        head = s3.head_object(Bucket=bucket, Key=key)
        table.put_item(
            Item={
                "receipt_key": key,
                "bytes": head["ContentLength"],
                "content_type": head.get("ContentType", "binary/octet-stream"),
            }
        )
        registered += 1
    logger.info("%d receipts registered", registered)
    return {"registered": registered}
