"""Applies the operation packed into an uploaded key (`<object key>#<operation>`) to the
object the key's first part names.  The bug: an operation it does not know raises, which
only a key packed with `#` whose first part names an object of the bucket reaches (a key
without `#` fails at the unpacking, one naming no object returns early)."""

import urllib.parse

import boto3

s3 = boto3.client("s3")


def handler(event, context):
    record = event["Records"][0]["s3"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    name, operation = key.split("#")
    try:
        body = s3.get_object(Bucket=record["bucket"]["name"], Key=name)["Body"].read()
    except s3.exceptions.NoSuchKey:
        return {"missing": name}
    if operation == "count":
        return {"bytes": len(body)}
    if operation == "strip":
        return {"size": len(body.strip())}
    raise NotImplementedError(f"operation {operation!r}")  # BUG
