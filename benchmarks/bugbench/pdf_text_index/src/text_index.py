"""Knowledge base indexing: extract each uploaded manual's text into a sidecar file."""

import io
import logging
import urllib.parse

import boto3
from pypdf import PdfReader

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
MAX_PAGES = 50


def index_manual(bucket: str, key: str) -> bool:
    data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    if not data.startswith(b"%PDF"):
        logger.info("%s is not a PDF, not indexed", key)
        return False
    try:
        reader = PdfReader(io.BytesIO(data))
        text = "\n".join(page.extract_text() or "" for page in reader.pages[:MAX_PAGES])
        sidecar = key.removeprefix("manuals/").rsplit(".", 1)[0] + ".txt"
        s3.put_object(Bucket=bucket, Key=f"text/{sidecar}", Body=text.encode("utf-8"))
        return True
    except Exception:
        # one bad manual must not block the others in the batch
        logger.exception("indexing %s failed", key)
        return False


def lambda_handler(event, context):
    indexed = 0
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        indexed += index_manual(bucket, key)
    return {"indexed": indexed}
