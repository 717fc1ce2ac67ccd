"""What every version does with a shipment: mark the order shipped, word the notice."""

import json
import os
from datetime import UTC, datetime

import boto3

orders = boto3.resource("dynamodb").Table(os.environ["ORDERS_TABLE"])
sns = boto3.client("sns")
TOPIC = os.environ["NOTIFICATIONS_TOPIC"]


def shipment_of(record):
    return json.loads(record["Sns"]["Message"])


def mark_shipped(shipment):
    """The order's status: the same item whichever delivery writes it (a new timestamp)."""
    orders.put_item(
        Item={
            "pk": f"ORDER#{shipment['order_id']}",
            "status": "shipped",
            "carrier": shipment["carrier"],
            "tracking_number": shipment["tracking_number"],
            "updated_at": datetime.now(UTC).isoformat(),
        }
    )


def notify(shipment):
    sns.publish(
        TopicArn=TOPIC,
        Subject="Your order is on its way",
        Message=json.dumps(
            {
                "to": shipment["customer_email"],
                "order_id": shipment["order_id"],
                "text": f"Shipped with {shipment['carrier']}: {shipment['tracking_number']}",
            }
        ),
    )
