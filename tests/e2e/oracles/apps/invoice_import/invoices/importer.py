"""Records each row of an uploaded invoice CSV (invoice_id, customer, amount) in a table.

A file with a row that cannot be read is copied to rejected/ for a person to look at and
none of its rows are recorded.
"""

import csv
import io
import os
import urllib.parse
from decimal import Decimal, InvalidOperation

import boto3

s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["INVOICES_TABLE"])


def handler(event, context):
    recorded = 0
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8", "replace")
        rows = list(csv.DictReader(io.StringIO(body, newline="")))
        invoices = [_invoice(row) for row in rows]
        if any(invoice is None for invoice in invoices):
            name = key.rsplit("/", 1)[-1]
            s3.copy_object(
                Bucket=bucket,
                Key=f"rejected/{name}",
                CopySource={"Bucket": bucket, "Key": key},
            )
            continue
        for invoice in invoices:
            table.put_item(Item=invoice)
            recorded += 1
    return {"recorded": recorded}


def _invoice(row):
    invoice_id = (row.get("invoice_id") or "").strip()
    try:
        amount = Decimal((row.get("amount") or "").strip())
    except InvalidOperation:
        return None
    if not invoice_id or not amount.is_finite():
        return None
    return {"invoice_id": invoice_id, "customer": row.get("customer") or "", "amount": amount}
