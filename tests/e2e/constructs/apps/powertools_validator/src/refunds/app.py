"""Compute the refund and the processor fee we get back for it."""

from aws_lambda_powertools.utilities.validation import validator

from refunds.schemas import REFUND_REQUEST

# the processor returns its fee on refunds, as a share of the amount, per settlement currency
# planted bug: JPY was added to the accepted currencies but not to the fee table
FEE_SHARE = {"EUR": 0.014, "USD": 0.029, "GBP": 0.015}
MINOR_UNITS = {"EUR": 100, "USD": 100, "GBP": 100, "JPY": 1}


@validator(inbound_schema=REFUND_REQUEST)
def lambda_handler(event, context):
    currency = event["currency"]
    amount_minor = round(event["amount"] * MINOR_UNITS[currency])
    lines = event.get("lines", [])
    itemised = round(sum(line["amount"] for line in lines) * MINOR_UNITS[currency])
    fee_back = round(amount_minor * FEE_SHARE[currency])
    return {
        "refund_id": event["refund_id"],
        "amount_minor": amount_minor,
        "unitemised_minor": max(0, amount_minor - itemised),
        "fee_returned_minor": fee_back if event["reason"] != "fraudulent" else 0,
        "notify": event.get("notify_customer", True),
    }
