"""Listing photos: record every photo's size; photos over PREVIEW_THRESHOLD px get a
downscaled preview whose scale is recorded for the gallery's zoom."""

import io
import logging
import os
import urllib.parse

import boto3
from PIL import Image, UnidentifiedImageError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["MEDIA_TABLE"])
PREVIEW_THRESHOLD = 1600
PREVIEW_SIDE = 800


def make_preview(bucket: str, key: str, image: Image.Image) -> dict:
    scale = PREVIEW_SIDE / max(image.size)
    preview = image.convert("RGB").resize((round(image.width * scale), round(image.height * scale)))
    out = io.BytesIO()
    preview.save(out, format="JPEG")
    preview_key = f"previews/{key}"
    s3.put_object(Bucket=bucket, Key=preview_key, Body=out.getvalue())
    return {"preview_key": preview_key, "preview_scale": scale}


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    if key.startswith("previews/"):
        return {"status": "ignored"}
    data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError):
        logger.warning("unreadable photo %s", key)
        return {"status": "unreadable"}
    item = {"photo_key": key, "width": image.width, "height": image.height}
    if max(image.size) > PREVIEW_THRESHOLD:
        item.update(make_preview(bucket, key, image))
        table.put_item(Item=item)
    else:
        table.put_item(Item=item)
    logger.info("recorded %s", item)
    return {"status": "recorded"}
