"""Store every event a queue delivers, as it arrives, in the events table."""

import json
import os

import boto3

events = boto3.resource("dynamodb").Table(os.environ["EVENTS_TABLE"])


def lambda_handler(event, context):
    stored = 0
    for record in event["Records"]:
        events.put_item(Item=json.loads(record["body"]))
        stored += 1
    return {"stored": stored}
