"""Marks the order shipped and tells the customer once per SNS message: a notice marker,
written on the condition that it is not there yet, comes before the notification."""

import os

import boto3

from shipping.notices import mark_shipped, notify, shipment_of

client = boto3.client("dynamodb")
TABLE = os.environ["ORDERS_TABLE"]


def handler(event, context):
    sent = 0
    for record in event["Records"]:
        shipment = shipment_of(record)
        mark_shipped(shipment)
        try:
            client.put_item(
                TableName=TABLE,
                Item={
                    "pk": {"S": f"NOTICE#{record['Sns']['MessageId']}"},
                    "order_id": {"S": shipment["order_id"]},
                },
                ConditionExpression="attribute_not_exists(pk)",
            )
        except client.exceptions.ConditionalCheckFailedException:
            continue  # this message's notice went out with an earlier delivery
        notify(shipment)
        sent += 1
    return {"notified": sent}
