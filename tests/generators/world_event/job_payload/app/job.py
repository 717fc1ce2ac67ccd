import boto3

S3 = boto3.client("s3")


def handler(event, context):
    body = S3.get_object(Bucket=event["input_bucket"], Key=event["key"])["Body"].read()
    lines = body.decode("utf-8").splitlines()
    return {"first": lines[0]}
