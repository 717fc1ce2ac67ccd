"""Team drive quotas: each upload adds its size to its team's usage counter."""

import logging
import os
import urllib.parse

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["USAGE_TABLE"])


def owner_team(key: str) -> str | None:
    if "/" not in key:
        return None  # files at the top level belong to nobody's quota
    team, _filename = key.split("/")
    return team.lower()


def lambda_handler(event, context):
    for record in event["Records"]:
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        size = int(record["s3"]["object"].get("size", 0))
        team = owner_team(key)
        if not team:
            logger.info("%s is outside any team folder", key)
            continue
        table.update_item(
            Key={"team": team},
            UpdateExpression="ADD bytes_used :size, files :one",
            ExpressionAttributeValues={":size": size, ":one": 1},
        )
    return {"status": "ok"}
