"""Booking API: a party of 1-12 books a table for a slot."""

import json
import logging
import os
import uuid

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["BOOKINGS_TABLE"])
MAX_PARTY = 12


def respond(status: int, body: dict) -> dict:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(body),
    }


def create_booking(request: dict) -> dict:
    party = request.get("party_size")
    slot = request.get("slot")
    if (
        not isinstance(party, int)
        or not 1 <= party <= MAX_PARTY
        or not isinstance(slot, str)
        or not slot
    ):
        return respond(400, {"error": "party_size (1-12) and slot are required"})
    booking_id = str(uuid.uuid4())
    table.put_item(
        Item={
            "booking_id": booking_id,
            "party_size": party,
            "slot": slot,
            "name": str(request.get("name", "")),
        }
    )
    return respond(201, {"booking_id": booking_id})


def lambda_handler(event, context):
    try:
        request = json.loads(event.get("body") or "{}")
        if not isinstance(request, dict):
            return respond(400, {"error": "a booking is a JSON object"})
        return create_booking(request)
    except Exception:
        logger.exception("booking failed")
        return respond(500, {"error": "internal error"})
