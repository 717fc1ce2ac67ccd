"""Turn meter alerts from the alerts queue into open incidents in the readings table."""

import json
import os

import boto3

table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])


def handler(event, context):
    failures = []
    for record in event["Records"]:
        try:
            alert = json.loads(record["body"])
        except ValueError:
            failures.append({"itemIdentifier": record["messageId"]})
            continue
        if isinstance(alert, dict) and isinstance(alert.get("meterId"), str) and alert["meterId"]:
            table.put_item(Item={"objectKey": f"alert/{alert['meterId']}", "open": True})
    return {"batchItemFailures": failures}
