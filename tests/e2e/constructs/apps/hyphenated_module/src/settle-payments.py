"""Settle a batch of payment messages: JSON objects {"amount": ..., "currency": ...}."""

import json

RATES = {"EUR": 1.08, "GBP": 1.27, "USD": 1.0}


def _settle(body: str) -> float:
    try:
        payment = json.loads(body)
    except ValueError:
        return 0.0  # not a payment: producers also send plain-text heartbeats
    if not isinstance(payment, dict):
        return 0.0
    amount = payment.get("amount", 0)
    if not isinstance(amount, int | float):
        return 0.0
    # planted bug: a payment without a currency is assumed to carry one
    rate = RATES.get(str(payment["currency"]).upper(), 1.0)
    return amount * rate


def handler(event, context):
    total = sum(_settle(record["body"]) for record in event["Records"])
    return {"settled": round(total, 2), "count": len(event["Records"])}
