import os

import boto3

CLIENT = boto3.client("dynamodb")
NAME = os.environ["AUDIT_TABLE"]


def handler(event, context):
    try:
        CLIENT.describe_table(TableName=NAME)
    except CLIENT.exceptions.ResourceNotFoundException:
        CLIENT.create_table(
            TableName=NAME,
            KeySchema=[{"AttributeName": "user", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "user", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        raise RuntimeError("the table was created without its stream") from None
    return {"user": str(event["user"])}
