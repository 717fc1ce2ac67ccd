import os
import urllib.parse

import boto3

TABLE = boto3.resource("dynamodb").Table(os.environ["INDEX_TABLE"])


def handler(event, context):
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        if TABLE.get_item(Key={"path": f"{bucket}/{key}"}).get("Item"):
            raise ValueError("file indexed twice")
        TABLE.put_item(Item={"path": f"{bucket}/{key}"})
