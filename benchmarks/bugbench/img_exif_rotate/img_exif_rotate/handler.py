"""Field inspection photos: turn each upright (phones store the orientation in EXIF) and
publish a review copy."""

import io
import logging
import os
import urllib.parse

import boto3
from PIL import Image, UnidentifiedImageError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
ORIENTATION_TAG = 0x0112
#: EXIF orientation -> degrees to rotate counter-clockwise
ROTATIONS = {1: 0, 3: 180, 6: 270, 8: 90}
MAX_SIDE = 1024


def upright(image: Image.Image) -> Image.Image:
    orientation = image.getexif().get(ORIENTATION_TAG, 1)
    degrees = ROTATIONS[orientation]
    return image.rotate(degrees, expand=True) if degrees else image


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError):
        logger.warning("skipping %s: not a readable image", key)
        return {"status": "skipped"}
    image = upright(image).convert("RGB")
    image.thumbnail((MAX_SIDE, MAX_SIDE))
    out = io.BytesIO()
    image.save(out, format="JPEG")
    s3.put_object(Bucket=os.environ["OUTPUT_BUCKET"], Key=f"review/{key}", Body=out.getvalue())
    logger.info("review copy of %s: %sx%s", key, *image.size)
    return {"status": "ok", "size": list(image.size)}
