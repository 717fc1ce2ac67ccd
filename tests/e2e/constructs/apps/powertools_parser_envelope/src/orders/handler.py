"""Price each order of a batch: items, loyalty discount, coupon, shipping."""

from aws_lambda_powertools.utilities.parser import envelopes, event_parser

from orders.models import Order

SHIPPING_CENTS = {"standard": 499, "express": 1299}
FREE_SHIPPING_FROM_CENTS = 5_000
# planted bug: the platinum tier was added to the model but not to the discount table
LOYALTY_DISCOUNT = {"basic": 0.0, "gold": 0.05}
COUPON_CENTS = 500


def price(order: Order) -> int:
    subtotal = sum(item.quantity * item.unit_price_cents for item in order.items)
    discounted = round(subtotal * (1 - LOYALTY_DISCOUNT[order.customer.tier]))
    if order.coupon is not None:
        discounted = max(0, discounted - COUPON_CENTS)
    shipping = 0 if discounted >= FREE_SHIPPING_FROM_CENTS else SHIPPING_CENTS[order.shipping]
    return discounted + shipping


@event_parser(model=Order, envelope=envelopes.SqsEnvelope)
def handler(orders: list[Order], context):
    totals = {order.order_id: price(order) for order in orders}
    return {"priced": len(totals), "total_cents": sum(totals.values())}
