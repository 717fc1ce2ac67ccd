"""Marks the order shipped and tells the customer (not idempotent: a redelivered message
sends the notification again)."""

from shipping.notices import mark_shipped, notify, shipment_of


def handler(event, context):
    for record in event["Records"]:
        shipment = shipment_of(record)
        mark_shipped(shipment)
        notify(shipment)
    return {"notified": len(event["Records"])}
