"""Price an order for the fulfilment state machine: lines, tier discount, promotion,
shipping and VAT.  The state before this one validated the document's shape; values are
checked here, and an order that cannot be priced is returned as REJECTED (the state
machine routes it to manual review)."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
CURRENCIES = {"EUR", "GBP", "USD"}
TIER_DISCOUNT = {"standard": Decimal("0"), "silver": Decimal("0.03"), "gold": Decimal("0.05")}
PROMOTIONS = {"SPRING24": Decimal("0.10"), "WELCOME5": Decimal("0.05")}
SHIPPING = {"standard": Decimal("4.90"), "express": Decimal("12.90"), "pickup": Decimal("0")}
VAT = {"DE": Decimal("0.19"), "FR": Decimal("0.20"), "NL": Decimal("0.21"), "AT": Decimal("0.20")}


def _money(value):
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _reject(order_id, reason):
    return {"orderId": order_id, "status": "REJECTED", "reason": reason}


def handler(event, context):
    order_id = event["orderId"]
    currency = event["currency"]
    if currency not in CURRENCIES:
        return _reject(order_id, f"unsupported currency {currency!r}")
    shipping = event["shipping"]
    method, country = shipping["method"], shipping["country"]
    if method not in SHIPPING:
        return _reject(order_id, f"unknown shipping method {method!r}")
    if country not in VAT:
        return _reject(order_id, f"we do not ship to {country!r}")

    lines = []
    for line in event["lines"]:
        quantity, price = line["quantity"], Decimal(str(line["unitPrice"]))
        if quantity < 0 or price < 0:
            return _reject(order_id, f"line {line['sku']}: negative quantity or price")
        lines.append((line["sku"], quantity, price))
    subtotal = sum((price * quantity for _, quantity, price in lines), Decimal("0"))
    units = sum(quantity for _, quantity, _ in lines)

    tier = event["customer"]["tier"]
    discount = TIER_DISCOUNT.get(tier, Decimal("0"))
    promotion = event.get("promotionCode")
    if promotion in PROMOTIONS:
        discount = max(discount, PROMOTIONS[promotion])
    discounted = subtotal * (1 - discount)

    invoice = []
    for sku, quantity, price in lines:
        # the invoice shows each line's net unit price after the order's discount
        line_net = price * quantity * (1 - discount)
        invoice.append(
            {"sku": sku, "quantity": quantity, "unitNet": str(_money(line_net / quantity))}
        )

    shipping_cost = SHIPPING[method]
    if method == "express" and units > 5:
        shipping_cost *= (units + 4) // 5  # one express parcel per 5 units
    gross = (discounted + shipping_cost) * (1 + VAT[country])
    return {
        "orderId": order_id,
        "status": "PRICED",
        "currency": currency,
        "lines": invoice,
        "subtotal": str(_money(subtotal)),
        "discount": str(discount),
        "shipping": str(_money(shipping_cost)),
        "total": str(_money(gross)),
    }
