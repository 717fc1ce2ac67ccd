"""Till receipts: each sale becomes a fixed-width receipt in the printers' code page."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
WIDTH = 32
CODEPAGE = "cp437"  # what the thermal printers understand


def render(sale: dict) -> bytes:
    lines = [str(sale.get("store", "STORE")).upper().center(WIDTH)]
    for item in sale.get("items", []):
        if not isinstance(item, dict):
            continue
        name, price = str(item.get("name", "?"))[:22], str(item.get("price", ""))
        lines.append(f"{name:<22}{price:>10}")
    lines.append(f"{'TOTAL':<22}{str(sale.get('total', '')):>10}")
    return "\n".join(lines).encode(CODEPAGE)


def lambda_handler(event, context):
    spooled = 0
    for record in event["Records"]:
        try:
            sale = json.loads(record["Sns"]["Message"])
            if not isinstance(sale, dict) or not isinstance(sale.get("sale_id"), str):
                continue
            s3.put_object(
                Bucket=os.environ["SPOOL_BUCKET"],
                Key=f"spool/{sale['sale_id']}.txt",
                Body=render(sale),
            )
            spooled += 1
        except Exception:
            logger.exception("receipt not printed")
    return {"spooled": spooled}
