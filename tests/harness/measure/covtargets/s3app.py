"""A handler-shaped function that writes an S3 object and reads it back (run under moto)."""

import boto3


def handler(event, context=None):
    s3 = boto3.client("s3", region_name="us-east-1")
    body = event.get("body") or b"empty"
    key = event["key"]
    if key.endswith("/"):
        key += "index"
    s3.put_object(Bucket=event["bucket"], Key=key, Body=body)
    got = s3.get_object(Bucket=event["bucket"], Key=key)["Body"].read()
    if got == body:
        return {"statusCode": 200, "size": len(got)}
    return {"statusCode": 500}
