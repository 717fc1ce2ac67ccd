"""Catalog thumbnails: every product photo gets a JPEG thumbnail for the storefront."""

import io
import logging
import os
import urllib.parse

import boto3
from PIL import Image, UnidentifiedImageError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
THUMB_SIZE = (400, 400)


def make_thumbnail(data: bytes) -> bytes:
    image = Image.open(io.BytesIO(data))
    image.thumbnail(THUMB_SIZE)
    out = io.BytesIO()
    # the storefront serves JPEG only
    image.save(out, format="JPEG", quality=85)
    return out.getvalue()


def lambda_handler(event, context):
    written = []
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        try:
            Image.open(io.BytesIO(data)).verify()
        except (UnidentifiedImageError, OSError, SyntaxError):
            logger.warning("not an image, skipped: %s", key)
            continue
        thumb = make_thumbnail(data)
        name = key.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        s3.put_object(
            Bucket=os.environ["THUMB_BUCKET"],
            Key=f"thumbs/{name}.jpg",
            Body=thumb,
            ContentType="image/jpeg",
        )
        written.append(name)
    logger.info("thumbnails written: %s", written)
    return {"thumbnails": len(written)}
