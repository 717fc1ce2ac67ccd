"""A 64x48 preview makes 64 tiles; an image narrower than the grid has a zero tile step."""

import io

from PIL import Image

from benchmarks.bugbench import events


def _png(size) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 60, 120)).save(out, format="PNG")
    return out.getvalue()


def benign():
    return {
        "s3": {"map-previews": {"area.png": _png((64, 48))}},
        "event": events.s3("map-previews", "area.png"),
    }


def trigger():
    return {
        "s3": {"map-previews": {"dot.png": _png((1, 1))}},
        "event": events.s3("map-previews", "dot.png"),
    }
