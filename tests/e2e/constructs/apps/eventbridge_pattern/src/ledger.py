"""Book placed orders into the ledger in US dollars.

The rule's pattern delivers only com.shop.orders OrderPlaced events whose detail has a
positive amount, a currency of USD/EUR/GBP and an `ord-` order id: read directly.
"""

from decimal import ROUND_HALF_UP, Decimal

USD_RATES = {"USD": Decimal("1"), "EUR": Decimal("1.08")}


def handler(event, context):
    assert event["source"] == "com.shop.orders"
    assert event["detail-type"] == "OrderPlaced"
    detail = event["detail"]
    order_number = detail["orderId"].removeprefix("ord-")
    amount = Decimal(str(detail["amount"]))
    # planted bug: the rate table was never extended when GBP orders were enabled
    rate = USD_RATES[detail["currency"]]
    booked = (amount * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return {"order": order_number, "usd": str(booked), "at": event["time"]}
