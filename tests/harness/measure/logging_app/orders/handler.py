"""Imports an uploaded order manifest (JSON) into the orders table.

It logs the way Lambda functions usually do (a module logger at INFO, print for progress)
and fails on uploads that are not manifests, after logging why."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import urllib.parse

import boto3
from middleware import validated

logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)

s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])


def _read_upload(event) -> tuple[str, str, bytes]:
    record = event["Records"][0]["s3"]
    bucket, key = record["bucket"]["name"], record["object"]["key"]
    print(f"import started for s3://{bucket}/{key}")
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    logger.info("read %d bytes from %s", len(body), key)
    return bucket, key, body


def _parse_manifest(key: str, body: bytes) -> dict:
    text = body.decode("utf-8", "replace")
    if not text.lstrip().startswith("{"):
        logger.error("upload %s is not an order manifest (starts with %r)", key, text[:20])
        raise ValueError(f"unsupported upload {key!r}")  # LOGGING_APP:raise
    return json.loads(text)


def lambda_handler(event, context):
    _bucket, key, body = _read_upload(event)
    manifest = _parse_manifest(key, body)
    for order in manifest.get("orders", []):
        table.put_item(Item={"order_id": str(order["id"])})
    return {"statusCode": 200, "imported": len(manifest.get("orders", []))}


def decoded_handler(event, context):
    """The import with the object key decoded as S3 encodes it: NoSuchKey only for an
    object that is not there."""
    record = event["Records"][0]["s3"]
    bucket = record["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    manifest = _parse_manifest(key, body)
    return {"statusCode": 200, "imported": len(manifest.get("orders", []))}


def floods_then_fails(event, context):
    """50 MB on stdout, then a failure: the saved log holds only the last lines."""
    chunk = "x" * 1023 + "\n"
    for _ in range(50 * 1024):
        sys.stdout.write(chunk)
    print("last words before the failure")
    raise RuntimeError("flooded")  # LOGGING_APP:flood_raise


def logs_then_exits(event, context):
    """Output the worker never gets to send back: the campaign reads it from the ring."""
    print("about to leave without a word to the runtime")
    logger.error("exiting with status 3")
    os._exit(3)  # LOGGING_APP:exit


def logs_then_hangs(event, context):
    logger.warning("waiting for a lock that never frees")
    while True:
        time.sleep(0.05)  # LOGGING_APP:hang


@validated
def validated_handler(event, context):
    """Fails inside the validation library, which drops the application's frames."""
    return {"statusCode": 200, "type": event["detail-type"]}  # an S3 event has none


def prints_and_returns(event, context):
    print("hello from a passing test")
    logging.getLogger().warning("root logger warning")
    return {"statusCode": 200}
