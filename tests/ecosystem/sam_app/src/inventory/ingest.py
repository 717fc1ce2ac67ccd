"""S3-triggered: a CSV of `sku,qty` rows under incoming/ -> items in the inventory table,
a report in the reports bucket and a job on the queue."""

from __future__ import annotations

import csv
import io
import json
import os
import urllib.parse

import boto3

s3 = boto3.client("s3")
sqs = boto3.client("sqs")
table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])


def handler(event, context):
    written = 0
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        try:
            data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        except s3.exceptions.NoSuchKey:
            continue  # deleted before this notification arrived: nothing to ingest
        text = data.decode("utf-8")  # planted: binary uploads raise UnicodeDecodeError
        for row in csv.DictReader(io.StringIO(text)):
            sku = row.get("sku")
            if not sku:
                continue
            qty = int(row.get("qty") or 0)
            table.put_item(Item={"sku": sku, "version": 1, "qty": qty})
            written += 1
    if written:
        report = f"{written} rows from {len(event['Records'])} uploads"
        s3.put_object(Bucket=os.environ["REPORT_BUCKET"], Key="reports/latest.txt", Body=report)
        sqs.send_message(
            QueueUrl=os.environ["JOBS_QUEUE_URL"], MessageBody=json.dumps({"written": written})
        )
    return {"written": written}
