"""Leaderboard: a player's score gain since the last change is added to the weekly board."""

import logging
import os
from decimal import Decimal

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
board = boto3.resource("dynamodb").Table(os.environ["BOARD_TABLE"])


def score_of(image: dict | None) -> int:
    if not image or "score" not in image:
        return 0
    return int(Decimal(image["score"]["N"]))


def lambda_handler(event, context):
    updated = 0
    for record in event["Records"]:
        if record.get("eventName") not in ("INSERT", "MODIFY"):
            continue
        data = record["dynamodb"]
        gain = score_of(data.get("NewImage")) - score_of(data.get("OldImage"))
        if gain <= 0:
            continue
        board.update_item(
            Key={"player_id": data["Keys"]["player_id"]["S"]},
            UpdateExpression="ADD weekly :g",
            ExpressionAttributeValues={":g": gain},
        )
        updated += 1
    return {"updated": updated}
