"""Write a thumbnail that fits MAX_DIMENSION x MAX_DIMENSION next to each uploaded image."""

from __future__ import annotations

import io
import logging
import re
import urllib.parse
from typing import Any

import boto3
from botocore.exceptions import ClientError
from PIL import Image

logger = logging.getLogger()
logger.setLevel(logging.INFO)

MAX_DIMENSION = 100.0
JPG_TYPE = "jpg"
JPG_MIME = "image/jpeg"
PNG_TYPE = "png"
PNG_MIME = "image/png"
DEST_PREFIX = "resized-"

# A `%` not followed by two hex digits: Java's URLDecoder rejects it, urllib keeps it.
MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")

# Created once per container, as the Lambda docs recommend.
s3 = boto3.client("s3")


class ThumbnailFatalError(Exception):
    """S3 refused the thumbnail; the original sample exits the runtime here."""


def decode_key(raw_key: str) -> str:
    """Undo S3's form encoding of the event key, refusing a malformed `%` escape."""
    match = MALFORMED_ESCAPE.search(raw_key)
    if match:
        raise ValueError(f"malformed %-escape at index {match.start()} in key {raw_key!r}")
    return urllib.parse.unquote_plus(raw_key)


def resize_image(image: Image.Image) -> Image.Image:
    """Scale to fit the box (small images grow), painted as RGB on a white background."""
    width, height = image.size
    scale = min(MAX_DIMENSION / width, MAX_DIMENSION / height)
    new_width = int(scale * width)
    new_height = int(scale * height)
    if new_width == 0 or new_height == 0:
        raise ValueError(f"cannot scale a {width}x{height} image to {new_width}x{new_height}")
    scaled = image.convert("RGBA").resize((new_width, new_height), Image.Resampling.BILINEAR)
    thumbnail = Image.new("RGB", (new_width, new_height), "white")
    thumbnail.paste(scaled, (0, 0), scaled)
    return thumbnail


def lambda_handler(event: dict[str, Any], context: Any) -> str:
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = decode_key(record["s3"]["object"]["key"])
    dest_key = DEST_PREFIX + key

    _, dot, image_type = key.rpartition(".")
    if not dot:
        logger.info("unable to infer image type for key %s", key)
        return ""
    if image_type != JPG_TYPE and image_type != PNG_TYPE:
        logger.info("skipping non-image %s", key)
        return ""

    response = s3.get_object(Bucket=bucket, Key=key)
    with Image.open(io.BytesIO(response["Body"].read())) as image:
        thumbnail = resize_image(image)

    if image_type == JPG_TYPE:
        pil_format, content_type = "JPEG", JPG_MIME
    else:
        pil_format, content_type = "PNG", PNG_MIME
    buffer = io.BytesIO()
    thumbnail.save(buffer, format=pil_format)

    try:
        s3.put_object(Bucket=bucket, Key=dest_key, Body=buffer.getvalue(), ContentType=content_type)
    except ClientError as err:
        logger.error("could not write %s/%s: %s", bucket, dest_key, err)
        raise ThumbnailFatalError(f"put of {dest_key!r} failed") from err
    logger.info("wrote %s/%s", bucket, dest_key)
    return "Ok"
