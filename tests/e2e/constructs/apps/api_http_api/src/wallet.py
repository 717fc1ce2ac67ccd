"""Wallet service behind an HTTP API: a deposit is a JSON list of amounts in cents.  The
handler dispatches on the route key API Gateway matched, so each route's path parameters
are there; `$default` gets everything else."""

import base64
import json
import os

import boto3
from boto3.dynamodb.types import Binary

_table = boto3.resource("dynamodb").Table(os.environ["WALLETS_TABLE"])
MAX_DEPOSIT_CENTS = 10_000_000


def _jsonable(value):
    """Attribute values JSON lacks: binaries as base64, sets as lists, numbers as text."""
    if isinstance(value, Binary):
        return base64.b64encode(value.value).decode()
    if isinstance(value, set):
        return sorted(_jsonable(v) for v in value)
    return str(value)


def _reply(status, body):
    return {"statusCode": status, "body": json.dumps(body, default=_jsonable)}


def balance(event):
    wallet_id = event["pathParameters"]["walletId"]
    item = _table.get_item(Key={"walletId": wallet_id}).get("Item")
    if item is None:
        return _reply(404, {"message": "no such wallet"})
    return _reply(200, {"walletId": wallet_id, "balance": item.get("balance", 0)})


def _json_body(event):
    body = event.get("body")
    if body is None:
        return None
    if event["isBase64Encoded"]:
        body = base64.b64decode(body)
    try:
        return json.loads(body)
    except ValueError:
        return None


def deposit(event):
    wallet_id = event["pathParameters"]["walletId"]
    allocations = _json_body(event)
    if not isinstance(allocations, list) or not allocations:
        return _reply(400, {"message": "expected a JSON list of amounts in cents"})
    cents = [
        a
        for a in allocations
        if isinstance(a, int) and not isinstance(a, bool) and 0 < a <= MAX_DEPOSIT_CENTS
    ]
    total = sum(cents)
    # planted bug: a list holding no valid amount passes the check above
    average = total // len(cents)
    return _reply(202, {"walletId": wallet_id, "total": total, "average": average})


def not_found(event):
    return _reply(404, {"message": f"no route for {event['rawPath']}"})


ROUTES = {
    "GET /wallets/{walletId}/balance": balance,
    "POST /wallets/{walletId}/deposits": deposit,
    "$default": not_found,
}


def handler(event, context):
    return ROUTES[event["routeKey"]](event)
