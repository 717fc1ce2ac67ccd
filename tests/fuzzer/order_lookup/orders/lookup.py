"""An order service's REST endpoint: GET or POST /orders/{orderId} returns an order; a
POST body `{"cancel": true}` cancels it first.  Errors the team expected are answered 4xx
and logged; one it did not expect (a body that is JSON but not an object) escapes."""

import json
import logging
import os

import boto3
from botocore.exceptions import ClientError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
orders = boto3.resource("dynamodb").Table(os.environ.get("ORDERS_TABLE", "orders"))


def lambda_handler(event, context):
    try:
        order_id = event["pathParameters"]["orderId"]
        request = json.loads(event.get("body") or "{}")
        order = orders.get_item(Key={"orderId": order_id}).get("Item")
        if order is None:
            raise LookupError(f"no order {order_id}")
        if request.get("cancel"):
            orders.update_item(
                Key={"orderId": order_id},
                UpdateExpression="SET #s = :s",
                ConditionExpression="attribute_not_exists(#s) OR #s <> :s",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":s": "cancelled"},
            )
            return {"statusCode": 200, "body": json.dumps({"orderId": order_id, "cancelled": True})}
        return {"statusCode": 200, "body": json.dumps({"orderId": order_id})}
    except ClientError:
        logger.exception("the orders table refused the request")
        return {"statusCode": 409, "body": "conflict"}
    except (KeyError, TypeError, ValueError, LookupError):
        logger.exception("bad request")
        return {"statusCode": 400, "body": "bad request"}
