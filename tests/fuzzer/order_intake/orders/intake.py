"""Order intake: each SQS record is an order; reserve stock, record the order, announce low stock."""

import json
import os
from decimal import Decimal

import boto3
from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

dynamodb = boto3.resource("dynamodb")
orders = dynamodb.Table(os.environ["ORDERS_TABLE"])
stock = dynamodb.Table(os.environ["STOCK_TABLE"])
sns = boto3.client("sns")
LOW_STOCK = 5
MAX_OPEN_ORDERS = 3


class BadOrder(ValueError):
    pass


def parse(body: str) -> dict:
    order = json.loads(body)
    if not isinstance(order, dict):
        raise BadOrder("order must be an object")
    lines = order["lines"]
    if not lines:
        raise BadOrder("order has no lines")
    total = Decimal(0)
    for line in lines:
        qty = int(line["qty"])
        if qty <= 0:
            raise BadOrder(f"bad quantity {qty}")
        total += Decimal(str(line["price"])) * qty
    order["total"] = total
    return order


def open_orders(customer_id: str) -> int:
    resp = orders.query(KeyConditionExpression=Key("customer_id").eq(customer_id))
    return sum(1 for item in resp["Items"] if item.get("status") == "OPEN")


def reserve(sku: str, qty: int) -> int:
    resp = stock.update_item(
        Key={"sku": sku},
        UpdateExpression="SET available = available - :q",
        ConditionExpression="available >= :q",
        ExpressionAttributeValues={":q": qty},
        ReturnValues="UPDATED_NEW",
    )
    return int(resp["Attributes"]["available"])


def process(record: dict) -> None:
    order = parse(record["body"])
    customer = order["customer_id"]
    if open_orders(customer) >= MAX_OPEN_ORDERS:
        raise BadOrder("too many open orders")
    for line in order["lines"]:
        left = reserve(line["sku"], int(line["qty"]))
        if left < LOW_STOCK:
            sns.publish(
                TopicArn=os.environ["LOW_STOCK_TOPIC"],
                Message=json.dumps({"sku": line["sku"], "left": left}),
            )
    orders.put_item(
        Item={
            "customer_id": customer,
            "order_id": order["order_id"],
            "status": "OPEN",
            "total": order["total"],
        },
        ConditionExpression="attribute_not_exists(order_id)",
    )


def handler(event, context):
    failures = []
    for record in event["Records"]:
        try:
            process(record)
        except BadOrder:
            failures.append({"itemIdentifier": record["messageId"]})
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}
