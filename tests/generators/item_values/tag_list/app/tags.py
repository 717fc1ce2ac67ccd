import os
from decimal import Decimal

import boto3

TABLE = boto3.resource("dynamodb").Table(os.environ["TAGS_TABLE"])


def handler(event, context):
    item = TABLE.get_item(Key={"pk": "TAGS"}).get("Item") or {}
    tags = item.get("tags", [])
    if not isinstance(tags, list):
        return {"tags": []}
    names = [t for t in tags if isinstance(t, (str, Decimal))]  # skip what is no name
    return {"tags": sorted(names)}  # a number among the strings
