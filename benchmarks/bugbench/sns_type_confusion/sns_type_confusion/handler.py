"""Metric alerts: an alert whose value crosses its threshold opens an incident."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["INCIDENTS_TABLE"])


def breached(alert: dict) -> bool:
    direction = alert.get("direction", "above")
    if direction == "below":
        return alert["value"] < alert["threshold"]
    return alert["value"] > alert["threshold"]


def lambda_handler(event, context):
    opened = 0
    for record in event["Records"]:
        try:
            alert = json.loads(record["Sns"]["Message"])
        except ValueError:
            logger.warning("alert is not JSON: %.80s", record["Sns"]["Message"])
            continue
        if not isinstance(alert, dict) or not {"metric", "value", "threshold"} <= alert.keys():
            continue
        if breached(alert):
            table.put_item(Item={"metric": str(alert["metric"]), "status": "open"})
            opened += 1
    return {"opened": opened}
