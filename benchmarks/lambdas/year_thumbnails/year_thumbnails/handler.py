"""A contact sheet of the photos taken in 2008, from the folder of the uploaded object.

The year a photo was taken comes from its EXIF DateTimeOriginal, or from the EXIF DateTime
when the camera did not record the original time. Photos without a readable date are skipped.
"""

from __future__ import annotations

import io
import logging
import posixpath
import urllib.parse
from datetime import datetime
from typing import Any

import boto3
from PIL import Image

logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)

YEAR = 2008
SHEET_KEY = f"thumbnails/{YEAR}.jpg"
THUMBNAIL_SIZE = (100, 100)
IMAGE_EXTENSIONS = frozenset({".jpg", ".jpeg", ".png", ".gif"})

EXIF_IFD = 0x8769
DATE_TIME_ORIGINAL = 36867  # in the Exif IFD
DATE_TIME = 306  # in IFD0
EXIF_DATE_FORMAT = "%Y:%m:%d %H:%M:%S"

s3 = boto3.client("s3")


def lambda_handler(event: dict[str, Any], context: Any) -> int:
    s3_record = event["Records"][0]["s3"]
    bucket = s3_record["bucket"]["name"]
    key = urllib.parse.unquote_plus(s3_record["object"]["key"])
    folder, slash, _name = key.rpartition("/")
    prefix = folder + slash

    thumbnails = []
    for photo_key in list_keys(bucket, prefix):
        if posixpath.splitext(photo_key)[1].lower() not in IMAGE_EXTENSIONS:
            continue
        body = s3.get_object(Bucket=bucket, Key=photo_key)["Body"].read()
        with Image.open(io.BytesIO(body)) as image:
            year = year_taken(image)
            if year is None:
                logger.info("skipping %s: no readable EXIF date", photo_key)
                continue
            if year == YEAR:
                thumbnails.append(thumbnail(image))

    if not thumbnails:
        logger.info("no photo under %r was taken in %d", prefix, YEAR)
        return 0
    s3.put_object(
        Bucket=bucket,
        Key=SHEET_KEY,
        Body=contact_sheet(thumbnails),
        ContentType="image/jpeg",
    )
    logger.info("wrote %d thumbnails to s3://%s/%s", len(thumbnails), bucket, SHEET_KEY)
    return len(thumbnails)


def list_keys(bucket: str, prefix: str) -> list[str]:
    paginator = s3.get_paginator("list_objects_v2")
    return [
        obj["Key"]
        for page in paginator.paginate(Bucket=bucket, Prefix=prefix)
        for obj in page.get("Contents", [])
    ]


def year_taken(image: Image.Image) -> int | None:
    """The year from EXIF DateTimeOriginal, falling back to DateTime; None if neither reads."""
    exif = image.getexif()
    taken = exif.get_ifd(EXIF_IFD).get(DATE_TIME_ORIGINAL)
    if taken is None:
        taken = exif.get(DATE_TIME)
    if taken is None:
        return None
    try:
        return datetime.strptime(taken, EXIF_DATE_FORMAT).year
    except (TypeError, ValueError):
        return None


def thumbnail(image: Image.Image) -> Image.Image:
    """Shrink in place first: a JPEG then decodes at reduced scale, not at full size."""
    image.thumbnail(THUMBNAIL_SIZE)
    return image.convert("RGB")


def contact_sheet(thumbnails: list[Image.Image]) -> bytes:
    """The thumbnails side by side on white, as JPEG."""
    width = sum(t.width for t in thumbnails)
    height = max(t.height for t in thumbnails)
    sheet = Image.new("RGB", (width, height), "white")
    x = 0
    for t in thumbnails:
        sheet.paste(t, (x, 0))
        x += t.width
    out = io.BytesIO()
    sheet.save(out, format="JPEG")
    return out.getvalue()
