"""Map viewer tiles: every preview image is cut into a GRID x GRID grid of PNG tiles
(4x4: each tile is one S3 object, and the viewer loads them all)."""

import io
import logging
import os
import urllib.parse

import boto3
from PIL import Image, UnidentifiedImageError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
GRID = 4


def tiles(image: Image.Image):
    step_x, step_y = image.width // GRID, image.height // GRID
    for row, top in enumerate(range(0, step_y * GRID, step_y)):
        for col, left in enumerate(range(0, step_x * GRID, step_x)):
            yield row, col, image.crop((left, top, left + step_x, top + step_y))


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        image = Image.open(io.BytesIO(body)).convert("RGB")
    except (UnidentifiedImageError, OSError):
        logger.warning("%s is not an image", key)
        return {"tiles": 0}
    stem = key.rsplit(".", 1)[0]
    count = 0
    for row, col, tile in tiles(image):
        out = io.BytesIO()
        tile.save(out, format="PNG")
        s3.put_object(
            Bucket=os.environ["TILES_BUCKET"], Key=f"{stem}/{row}/{col}.png", Body=out.getvalue()
        )
        count += 1
    logger.info("%s: %d tiles", key, count)
    return {"tiles": count}
