import os

import boto3

LANES = boto3.resource("dynamodb").Table(os.environ["LANES_TABLE"])


def handler(event, context):
    for record in event["Records"]:
        lane = record["attributes"]["MessageGroupId"]
        state = LANES.get_item(Key={"lane": lane}).get("Item")
        if state is not None:
            opened = state["opened_at"]
            if opened == 0:
                continue
        LANES.put_item(Item={"lane": lane, "opened_at": 1})
    return {"batchItemFailures": []}
