"""Award loyalty points for priced orders.

The event source mapping's filter delivers only JSON bodies with `"type": "order"` and a
numeric `total` above zero, so both are read directly.
"""

import json

#: Points per currency unit for each 250-unit band of the order total.
BAND_RATES = [1.0, 1.25, 1.5, 2.0]
BAND_WIDTH = 250


def points_for(total: float) -> int:
    # planted bug: an order of 1000 or more falls past the last band
    band = int(total // BAND_WIDTH)
    return round(total * BAND_RATES[band])


def handler(event, context):
    awarded = {}
    for record in event["Records"]:
        order = json.loads(record["body"])
        assert order["type"] == "order"
        customer = order.get("customer")
        key = customer if isinstance(customer, str) and customer else "anonymous"
        awarded[key] = awarded.get(key, 0) + points_for(order["total"])
    return {"awarded": awarded, "orders": len(event["Records"])}
