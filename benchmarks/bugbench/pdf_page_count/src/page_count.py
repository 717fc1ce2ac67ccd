"""Contract archive: page count and title of every filed PDF, for the search screen."""

import io
import logging
import os
import urllib.parse

import boto3
from pypdf import PdfReader
from pypdf.errors import PdfReadError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["CONTRACTS_TABLE"])


def describe(data: bytes) -> dict | None:
    try:
        reader = PdfReader(io.BytesIO(data))
    except PdfReadError:
        return None
    title = (reader.metadata or {}).get("/Title") or ""
    return {"pages": len(reader.pages), "title": str(title)}


def lambda_handler(event, context):
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        if not data.startswith(b"%PDF-"):
            logger.warning("%s is not a PDF", key)
            continue
        info = describe(data)
        if info is None:
            logger.warning("%s could not be parsed", key)
            continue
        table.put_item(Item={"document_key": key, **info})
        logger.info("filed %s: %d pages", key, info["pages"])
    return {"status": "done"}
