import os

import boto3

TABLE = boto3.resource("dynamodb").Table(os.environ["JOBS_TABLE"])


def handler(event, context):
    job = TABLE.get_item(Key={"id": event["job_id"]}).get("Item")
    if job is None:
        return {"state": "unknown"}
    state = job.get("state")
    if state == "done":
        return {"link": "s3://" + job["output"]}  # a done job without its output, or not text
    return {"state": state}
