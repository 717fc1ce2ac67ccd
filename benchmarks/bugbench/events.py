"""Events as AWS delivers them, for the hand-written cases of the bug benchmark.

Only the fields the handlers of this benchmark read, plus the ones every delivery carries,
so a case reads like the event a team would paste from CloudWatch."""

from __future__ import annotations

import json
import urllib.parse
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeSerializer

REGION = "us-east-1"
ACCOUNT = "123456789012"
TIME = "2026-11-24T08:00:00Z"


def s3(bucket: str, key: str, *, size: int = 0, event_name: str = "ObjectCreated:Put") -> dict:
    """An S3 notification: the key URL-encoded the way S3 encodes it (spaces as `+`)."""
    encoded = urllib.parse.quote_plus(key, safe="/")
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": REGION,
                "eventTime": TIME,
                "eventName": event_name,
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"},
                    "object": {"key": encoded, "size": size},
                },
            }
        ]
    }


def sqs(queue: str, *bodies: str) -> dict:
    """An SQS batch of `bodies` from `queue`."""
    arn = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{queue}"
    return {
        "Records": [
            {
                "messageId": f"00000000-0000-4000-8000-{n:012d}",
                "receiptHandle": f"handle-{n}",
                "body": body,
                "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1764000000000"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": arn,
                "awsRegion": REGION,
            }
            for n, body in enumerate(bodies)
        ]
    }


def sns(topic: str, message: str, *, subject: str | None = None) -> dict:
    """An SNS notification of one message."""
    arn = f"arn:aws:sns:{REGION}:{ACCOUNT}:{topic}"
    return {
        "Records": [
            {
                "EventSource": "aws:sns",
                "EventVersion": "1.0",
                "EventSubscriptionArn": f"{arn}:0f0e0d0c-0000-4000-8000-000000000001",
                "Sns": {
                    "Type": "Notification",
                    "MessageId": "0f0e0d0c-0000-4000-8000-000000000002",
                    "TopicArn": arn,
                    "Subject": subject,
                    "Message": message,
                    "Timestamp": TIME,
                    "MessageAttributes": {},
                },
            }
        ]
    }


def _image(item: dict[str, Any] | None) -> dict[str, Any] | None:
    if item is None:
        return None
    serializer = TypeSerializer()
    return {k: serializer.serialize(_decimals(v)) for k, v in item.items()}


def _decimals(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, dict):
        return {k: _decimals(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decimals(v) for v in value]
    return value


def stream(
    table: str,
    keys: dict[str, Any],
    *,
    new: dict[str, Any] | None = None,
    old: dict[str, Any] | None = None,
    event_name: str = "INSERT",
) -> dict:
    """A DynamoDB stream batch of one record (NEW_AND_OLD_IMAGES), images from Python."""
    record: dict[str, Any] = {
        "eventID": "1",
        "eventName": event_name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": REGION,
        "dynamodb": {
            "ApproximateCreationDateTime": 1764000000,
            "Keys": _image(keys),
            "SequenceNumber": "100000000000000000001",
            "SizeBytes": 100,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
        "eventSourceARN": f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}/stream/{TIME}",
    }
    if new is not None:
        record["dynamodb"]["NewImage"] = _image(new)
    if old is not None:
        record["dynamodb"]["OldImage"] = _image(old)
    return {"Records": [record]}


def stream_raw(table: str, keys: dict, new_image: dict, event_name: str = "INSERT") -> dict:
    """A stream record whose new image is given in DynamoDB JSON as is (a typed attribute
    another writer stored with an unexpected type)."""
    event = stream(table, keys, event_name=event_name)
    event["Records"][0]["dynamodb"]["NewImage"] = new_image
    return event


def api(
    method: str,
    path: str,
    *,
    resource: str | None = None,
    path_parameters: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    body: Any = None,
    content_type: str = "application/json",
) -> dict:
    """A REST API (payload 1.0) request; a dict or list body is sent as JSON text."""
    text = json.dumps(body) if isinstance(body, dict | list) else body
    return {
        "resource": resource or path,
        "path": path,
        "httpMethod": method,
        "headers": {"Content-Type": content_type} if text is not None else {},
        "multiValueHeaders": {},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": None,
        "pathParameters": path_parameters,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": resource or path,
            "httpMethod": method,
            "stage": "prod",
            "requestId": "c6af9ac6-0000-4000-8000-000000000001",
            "accountId": ACCOUNT,
        },
        "body": text,
        "isBase64Encoded": False,
    }


def eventbridge(source: str, detail_type: str, detail: dict, *, resources: list | None = None):
    """An EventBridge event."""
    return {
        "version": "0",
        "id": "6a7e8feb-0000-4000-8000-000000000001",
        "detail-type": detail_type,
        "source": source,
        "account": ACCOUNT,
        "time": TIME,
        "region": REGION,
        "resources": resources or [],
        "detail": detail,
    }


def eventbridge_s3(bucket: str, key: str, detail_type: str = "Object Created") -> dict:
    """An S3 event through EventBridge ("Object Created" / "Object Deleted")."""
    detail = {
        "version": "0",
        "bucket": {"name": bucket},
        "object": {"key": key, "size": 10, "etag": "0" * 32, "sequencer": "0062E99A88DC407460"},
        "request-id": "N4N7GDK58NMKJ12R",
        "requester": ACCOUNT,
        "reason": "PutObject" if detail_type == "Object Created" else "DeleteObject",
    }
    if detail_type == "Object Deleted":
        detail["deletion-type"] = "Permanently Deleted"
    return eventbridge("aws.s3", detail_type, detail, resources=[f"arn:aws:s3:::{bucket}"])
