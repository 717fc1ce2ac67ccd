"""Document intake: each upload is announced on the routing queue with its document type."""

import json
import logging
import os
import urllib.parse

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
sqs = boto3.client("sqs")
TYPES = {"csv": "table", "json": "table", "xml": "table", "txt": "text", "pdf": "document"}
IMAGE_EXTENSIONS = ("png", "jpg", "jpeg", "gif")


def document_type(key: str) -> str:
    extension = key.rsplit("/", 1)[-1].split(".")[1].lower()
    if extension in IMAGE_EXTENSIONS:
        return "image"
    return TYPES.get(extension, "other")


def lambda_handler(event, context):
    queue_url = sqs.get_queue_url(QueueName=os.environ["ROUTING_QUEUE"])["QueueUrl"]
    routed = []
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        kind = document_type(key)
        message = {"bucket": bucket, "key": key, "type": kind}
        sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(message))
        routed.append(kind)
    logger.info("routed %s", routed)
    return {"routed": routed}
