"""An RGB photo makes a thumbnail; a PNG with an alpha channel cannot be saved as JPEG."""

import io

from PIL import Image

from benchmarks.bugbench import events


def _png(mode: str, color) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (640, 480), color).save(out, format="PNG")
    return out.getvalue()


def benign():
    key = "products/red mug.png"
    return {
        "s3": {"catalog-uploads": {key: _png("RGB", (200, 30, 30))}},
        "event": events.s3("catalog-uploads", key),
    }


def trigger():
    key = "products/logo.png"
    return {
        "s3": {"catalog-uploads": {key: _png("RGBA", (0, 0, 0, 0))}},
        "event": events.s3("catalog-uploads", key),
    }
