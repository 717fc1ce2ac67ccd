import os

import boto3

TABLE = boto3.resource("dynamodb").Table(os.environ["SEEN_TABLE"])


def handler(event, context):
    for record in event["Records"]:
        seen = TABLE.get_item(Key={"id": record["messageId"]}).get("Item")
        if seen:
            raise RuntimeError("message processed twice")
        TABLE.put_item(Item={"id": record["messageId"]})
    return {"batchItemFailures": []}
