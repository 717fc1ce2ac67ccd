"""A profile API behind a Cognito user pool authorizer: the user id is the token's `sub`."""

import json
import os

import boto3

USERS = boto3.resource("dynamodb").Table(os.environ["USERS_TABLE"])


def lambda_handler(event, context):
    claims = event["requestContext"]["authorizer"]["claims"]
    user_id = claims["sub"]
    item = USERS.get_item(Key={"userId": user_id}).get("Item")
    if item is None:
        return {"statusCode": 404, "body": json.dumps({"error": "no such user"})}
    name = item["displayName"].strip()  # planted: stored users need not have one
    return {"statusCode": 200, "body": json.dumps({"name": name, "email": claims["email"]})}
