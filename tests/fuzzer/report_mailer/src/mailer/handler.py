"""Mails queued reports in batches; settings from Parameter Store, SMTP credentials from
Secrets Manager (read once per container, as the Lambda docs recommend)."""

import json
import os

import boto3

_ssm = boto3.client("ssm")
_secrets = boto3.client("secretsmanager")


def _settings():
    size = _ssm.get_parameter(Name=os.environ["BATCH_SIZE_PARAMETER"])["Parameter"]["Value"]
    recipients = _ssm.get_parameter(Name=os.environ["RECIPIENTS_PARAMETER"])["Parameter"]["Value"]
    return int(size), recipients.split(",")


def _credentials():
    secret = _secrets.get_secret_value(SecretId=os.environ["SMTP_SECRET_ARN"])
    return json.loads(secret["SecretString"])


def lambda_handler(event, context):
    batch_size, recipients = _settings()
    credentials = _credentials()
    if len(credentials["password"]) < 12:
        print("warning: the SMTP password is shorter than 12 characters")
    mails = []
    records = event["Records"]
    for start in range(0, len(records), batch_size):
        batch = records[start : start + batch_size]
        mails.append(
            {
                "from": credentials["username"],
                "to": recipients,
                "via": credentials["host"],
                "reports": [r["body"] for r in batch],
            }
        )
    return {"mails": len(mails)}
