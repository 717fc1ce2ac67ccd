"""CRM sync: each contact is stored with the first name the mailer greets them by."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["CONTACTS_TABLE"])


def greeting_name(full_name: str) -> str:
    return full_name.split()[0].capitalize()


def lambda_handler(event, context):
    synced = 0
    for record in event["Records"]:
        try:
            contact = json.loads(record["body"])
        except ValueError:
            continue
        if not isinstance(contact, dict):
            continue
        contact_id, name = contact.get("contact_id"), contact.get("name")
        if (
            not isinstance(contact_id, str)
            or not contact_id
            or not isinstance(name, str)
            or not name
        ):
            logger.info("contact without id or name skipped")
            continue
        table.put_item(
            Item={"contact_id": contact_id, "name": name, "greeting": greeting_name(name)}
        )
        synced += 1
    return {"synced": synced}
