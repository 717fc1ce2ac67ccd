import os

import boto3

TABLE = boto3.resource("dynamodb").Table(os.environ["ORDERS_TABLE"])


def handler(event, context):
    order = TABLE.get_item(Key={"pk": f"ORDER#{event['order_id']}"}).get("Item")
    if order is None:
        return {"status": "new"}
    total = order.get("total", 0) + 1
    return {"status": "updated", "total": str(total)}
