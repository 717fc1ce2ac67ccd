"""A handler with one planted bug that needs two coinciding facts in the world:
a CSV whose header names `account_id`, and a DynamoDB item keyed by the object's name."""

from __future__ import annotations

import urllib.parse

import boto3

s3 = boto3.client("s3")
accounts = boto3.resource("dynamodb").Table("accounts")


class AccountReprocessed(Exception):
    """The planted bug."""


def lambda_handler(event, context):
    record = event["Records"][0]["s3"]
    bucket = record["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8", "replace")
    lines = body.splitlines()
    if not lines:
        return {"statusCode": 400, "body": "empty"}
    if "account_id" not in lines[0]:
        return {"statusCode": 200, "body": "not an account file"}
    name = key.rsplit("/", 1)[-1]
    for candidate in (name, name.rsplit(".", 1)[0]):
        if accounts.get_item(Key={"id": candidate}).get("Item") is not None:
            raise AccountReprocessed(f"account file {candidate!r} was already processed")
    return {"statusCode": 200, "body": f"{len(lines) - 1} accounts"}
