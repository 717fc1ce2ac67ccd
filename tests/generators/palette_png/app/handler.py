"""A thumbnailer behind a `.png` key filter that reads a palette image's indices as if
they were RGB pixels: only a PNG in mode `P` breaks it."""

import io
import urllib.parse

import boto3
from PIL import Image, UnidentifiedImageError

s3 = boto3.client("s3")


def handler(event, context):
    record = event["Records"][0]["s3"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    data = s3.get_object(Bucket=record["bucket"]["name"], Key=key)["Body"].read()
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError):
        return {"status": "not an image"}
    if image.mode == "P":
        image = Image.frombytes("RGB", image.size, image.tobytes())  # BUG: one byte a pixel
    return {"size": list(image.size)}
