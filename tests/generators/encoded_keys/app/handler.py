"""Reads the object an S3 event names, with the event's key as it is: the bug is the
missing `unquote_plus` (S3 sends keys URL-encoded), so only a key S3 encodes breaks it."""

import boto3

s3 = boto3.client("s3")


def handler(event, context):
    record = event["Records"][0]["s3"]
    key = record["object"]["key"]
    body = s3.get_object(Bucket=record["bucket"]["name"], Key=key)["Body"].read()  # BUG
    return {"bytes": len(body)}
