"""A 640x480 photo is recorded as is; a 2000 px one takes the preview path, whose float
scale DynamoDB refuses."""

import io

from PIL import Image

from benchmarks.bugbench import events


def _jpeg(size) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 180, 150)).save(out, format="JPEG")
    return out.getvalue()


def benign():
    return {
        "s3": {"listing-photos": {"flat/kitchen.jpg": _jpeg((640, 480))}},
        "event": events.s3("listing-photos", "flat/kitchen.jpg"),
    }


def trigger():
    return {
        "s3": {"listing-photos": {"flat/view.jpg": _jpeg((2000, 1200))}},
        "event": events.s3("listing-photos", "flat/view.jpg"),
    }
