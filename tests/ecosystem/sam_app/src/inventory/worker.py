"""SQS-triggered: each message is a JSON job naming a sku; unknown skus raise an alert."""

from __future__ import annotations

import json
import os

import boto3

sns = boto3.client("sns")
table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])


def handler(event, context):
    alerts = 0
    for record in event["Records"]:
        try:
            job = json.loads(record["body"])
        except json.JSONDecodeError:
            print(f"dropping a message that is not JSON: {record['messageId']}")
            continue
        sku = job.get("sku")  # planted: JSON that is not an object raises AttributeError
        if not sku:
            continue
        item = table.get_item(Key={"sku": str(sku), "version": 1}).get("Item")
        if item is None:
            sns.publish(TopicArn=os.environ["ALERTS_TOPIC_ARN"], Message=f"unknown sku {sku}")
            alerts += 1
    return {"alerts": alerts}
