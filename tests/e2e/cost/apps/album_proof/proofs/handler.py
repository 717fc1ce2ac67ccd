"""When a photo lands in the album, rebuild the album's print proof: one sheet with every
photo at print resolution, stacked, saved as a JPEG in the proofs bucket.

Every photo is decoded at full size and scaled up to print resolution before any is
pasted, and all of them are held until the sheet is done: memory grows with the number
and the size of the photos.
"""

from __future__ import annotations

import io
from typing import Any

import boto3
from PIL import Image, UnidentifiedImageError

SCREEN_DPI = 72
PRINT_DPI = 1200


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    bucket = event["Records"][0]["s3"]["bucket"]["name"]
    s3 = boto3.client("s3")
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
    prints = []
    for page in pages:
        for obj in page.get("Contents", []):
            data = s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read()
            try:
                photo = Image.open(io.BytesIO(data)).convert("RGB")
            except (UnidentifiedImageError, OSError, ValueError):
                continue
            scale = PRINT_DPI / SCREEN_DPI
            size = (max(1, round(photo.width * scale)), max(1, round(photo.height * scale)))
            prints.append(photo.resize(size))
    if not prints:
        return {"photos": 0}
    sheet = Image.new("RGB", (max(p.width for p in prints), sum(p.height for p in prints)))
    top = 0
    for picture in prints:
        sheet.paste(picture, (0, top))
        top += picture.height
    out = io.BytesIO()
    sheet.save(out, format="JPEG", quality=80)
    s3.put_object(Bucket="proofs", Key=f"{bucket}.jpg", Body=out.getvalue())
    return {"photos": len(prints), "bytes": out.tell()}
