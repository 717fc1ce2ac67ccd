"""Three calls, one per kind of body: two reach emulator gaps, one a bug of its own."""

from __future__ import annotations

import boto3

dynamodb = boto3.client("dynamodb")


def lambda_handler(event, context):
    for record in event["Records"]:
        body = record["body"]
        if body.startswith("{"):
            # moto: "The describe_contributor_insights action has not been implemented"
            dynamodb.describe_contributor_insights(TableName="orders")
        elif len(body) > 8:
            dynamodb.list_exports()  # moto raises KeyError('TableArn') answering it
        else:
            return {"count": int(body)}  # planted: a body that is no number
    return {"count": 0}
