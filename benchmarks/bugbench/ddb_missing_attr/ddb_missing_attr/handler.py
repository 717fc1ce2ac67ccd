"""Welcome mails: new users (INSERT records) are queued for the mailer with their address."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
sqs = boto3.client("sqs")


def welcome_message(image: dict) -> dict:
    return {
        "user_id": image["user_id"]["S"],
        "to": image["email"]["S"],
        "locale": image.get("locale", {}).get("S", "en"),
    }


def lambda_handler(event, context):
    queue_url = sqs.get_queue_url(QueueName=os.environ["MAIL_QUEUE"])["QueueUrl"]
    queued = 0
    for record in event["Records"]:
        if record.get("eventName") != "INSERT":
            continue
        image = record["dynamodb"].get("NewImage") or {}
        sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(welcome_message(image)))
        queued += 1
    logger.info("%d welcome mails queued", queued)
    return {"queued": queued}
