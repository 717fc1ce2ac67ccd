"""Deploy log: CI publishes `{"service": ..., "version": ...}` after every deployment."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["DEPLOYS_TABLE"])


def parse_notification(sns: dict) -> dict:
    if sns.get("Subject") == "test":
        return {}
    return json.loads(sns["Message"])


def lambda_handler(event, context):
    recorded = 0
    for record in event["Records"]:
        deploy = parse_notification(record["Sns"])
        if not isinstance(deploy, dict):
            continue
        service, version = deploy.get("service"), deploy.get("version")
        if isinstance(service, str) and service and isinstance(version, str):
            table.put_item(
                Item={"service": service, "version": version, "at": record["Sns"]["Timestamp"]}
            )
            recorded += 1
    return {"recorded": recorded}
