"""GET /people/{personId}: a person's profile item (sort key PROFILE) and how many visits
(sort keys VISIT#<date>) the same partition holds."""

import json
import os

import boto3
from boto3.dynamodb.conditions import Key

people = boto3.resource("dynamodb").Table(os.environ["PEOPLE_TABLE"])


def lambda_handler(event, context):
    person_id = event["pathParameters"]["personId"]
    profile = people.get_item(Key={"PK": person_id, "SK": "PROFILE"}).get("Item")
    if profile is None:
        return {"statusCode": 404, "body": json.dumps({"error": f"no person {person_id}"})}
    visits = people.query(
        KeyConditionExpression=Key("PK").eq(person_id) & Key("SK").begins_with("VISIT#")
    )["Items"]
    summary = {"name": profile.get("name"), "email": profile.get("email"), "visits": len(visits)}
    return {"statusCode": 200, "body": json.dumps(summary)}
