"""Marks the order shipped and tells the customer, once per SNS message: Powertools'
idempotency keeps the first delivery's result and returns it to a retry."""

import os

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent,
)

from shipping.notices import mark_shipped, notify, shipment_of

persistence = DynamoDBPersistenceLayer(table_name=os.environ["IDEMPOTENCY_TABLE"])
config = IdempotencyConfig(event_key_jmespath="Records[0].Sns.MessageId")


@idempotent(config=config, persistence_store=persistence)
def handler(event, context):
    for record in event["Records"]:
        shipment = shipment_of(record)
        mark_shipped(shipment)
        notify(shipment)
    return {"notified": len(event["Records"])}
