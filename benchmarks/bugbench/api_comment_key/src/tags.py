"""Tags API: free-text tags on documents (lower-cased, trimmed)."""

import json
import logging
import os

import boto3
from botocore.exceptions import ClientError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["TAGS_TABLE"])


def respond(status: int, body: dict) -> dict:
    return {"statusCode": status, "body": json.dumps(body)}


def lambda_handler(event, context):
    doc_id = (event.get("pathParameters") or {}).get("docId")
    try:
        request = json.loads(event.get("body") or "")
    except ValueError:
        return respond(400, {"error": "JSON body expected"})
    tag = request.get("tag") if isinstance(request, dict) else None
    if not doc_id or not isinstance(tag, str) or not tag.strip():
        return respond(400, {"error": "a non-empty tag is required"})
    tag = tag.strip().lower()
    try:
        table.put_item(Item={"doc_id": doc_id, "tag": tag})
    except ClientError:
        logger.exception("tagging %s failed", doc_id)
        return respond(500, {"error": "could not save the tag"})
    return respond(200, {"doc_id": doc_id, "tag": tag})
