"""Media library index: a created object is registered with its size and type, a deleted
one is dropped from the asset table."""

import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["ASSETS_TABLE"])


def lambda_handler(event, context):
    detail = event["detail"]
    bucket, key = detail["bucket"]["name"], detail["object"]["key"]
    head = s3.head_object(Bucket=bucket, Key=key)
    if event["detail-type"] == "Object Deleted":
        table.delete_item(Key={"asset_key": key})
        logger.info("dropped %s", key)
        return {"action": "deleted"}
    table.put_item(
        Item={
            "asset_key": key,
            "bytes": head["ContentLength"],
            "content_type": head.get("ContentType", ""),
            "etag": head["ETag"].strip('"'),
        }
    )
    logger.info("registered %s", key)
    return {"action": "registered"}
