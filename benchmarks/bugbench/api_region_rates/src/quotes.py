"""Shipping quotes: price = base rate of the region + per-kg rate x weight."""

import json
import logging
from decimal import Decimal, InvalidOperation

logger = logging.getLogger()
logger.setLevel(logging.INFO)
REGIONS = ("domestic", "eu", "uk", "us", "apac")
# region -> (base, per kg), in EUR
RATES = {
    "domestic": (Decimal("4.90"), Decimal("0.50")),
    "eu": (Decimal("9.90"), Decimal("1.20")),
    "uk": (Decimal("12.50"), Decimal("1.80")),
    "us": (Decimal("19.00"), Decimal("3.10")),
}
MAX_WEIGHT_KG = 30


def respond(status: int, body: dict) -> dict:
    return {"statusCode": status, "body": json.dumps(body)}


def quote(region: str, weight: Decimal) -> Decimal:
    base, per_kg = RATES[region]
    return (base + per_kg * weight).quantize(Decimal("0.01"))


def lambda_handler(event, context):
    try:
        request = json.loads(event.get("body") or "")
    except ValueError:
        return respond(400, {"error": "JSON body expected"})
    if not isinstance(request, dict):
        return respond(400, {"error": "JSON object expected"})
    region = request.get("region")
    if region not in REGIONS:
        return respond(422, {"error": f"we ship to {', '.join(REGIONS)}"})
    try:
        weight = Decimal(str(request.get("weight_kg")))
    except InvalidOperation:
        return respond(422, {"error": "weight_kg must be a number"})
    if not weight.is_finite() or not 0 < weight <= MAX_WEIGHT_KG:
        return respond(422, {"error": f"weight_kg must be in (0, {MAX_WEIGHT_KG}]"})
    return respond(200, {"region": region, "price_eur": str(quote(region, weight))})
