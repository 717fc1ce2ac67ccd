"""A photo taken sideways (orientation 6) turns upright; a mirrored one (5) is not mapped."""

import io

from PIL import Image

from benchmarks.bugbench import events


def _jpeg(orientation: int) -> bytes:
    image = Image.new("RGB", (320, 240), (90, 120, 40))
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif)
    return out.getvalue()


def _case(orientation: int):
    key = "site-42/pump.jpg"
    return {
        "s3": {"inspection-photos": {key: _jpeg(orientation)}},
        "event": events.s3("inspection-photos", key),
    }


def benign():
    return _case(6)


def trigger():
    return _case(5)
