import os
from collections import Counter

import boto3
from boto3.dynamodb.types import TypeDeserializer

TABLE = boto3.resource("dynamodb").Table(os.environ["CART_TABLE"])
PLAIN = TypeDeserializer()


def _plain(image):
    return {name: PLAIN.deserialize(value) for name, value in (image or {}).items()}


def handler(event, context):
    deltas = Counter()
    for record in event["Records"]:
        change = record["dynamodb"]
        keys = _plain(change["Keys"])
        new, old = _plain(change.get("NewImage")), _plain(change.get("OldImage"))
        if keys["sk"].startswith("LINE#"):
            deltas[keys["sk"]] += new.get("qty", 0) - old.get("qty", 0)  # a qty stored as text
    for line, delta in deltas.items():
        TABLE.update_item(  # the line's running total, stored under the line's sort key
            Key={"pk": line, "sk": "TOTAL"},
            UpdateExpression="ADD qty :d",
            ExpressionAttributeValues={":d": delta},
        )
    return {"lines": len(deltas)}
