"""An archive of two CSVs is staged; a member whose stored CRC is wrong fails to read."""

import io
import zipfile

from benchmarks.bugbench import events

PRICES = b"sku,price\nA-1,9.99\nB-2,4.50\n"


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("prices.csv", PRICES)
        archive.writestr("stock.csv", b"sku,qty\nA-1,3\n")
    return out.getvalue()


def benign():
    return {
        "s3": {"supplier-feeds": {"inbound/acme.zip": _zip()}},
        "event": events.s3("supplier-feeds", "inbound/acme.zip"),
    }


def trigger():
    data = bytearray(_zip())
    start = data.index(PRICES)
    data[start + 4] ^= 0x20  # one byte of the stored member flipped: its CRC no longer holds
    return {
        "s3": {"supplier-feeds": {"inbound/acme.zip": bytes(data)}},
        "event": events.s3("supplier-feeds", "inbound/acme.zip"),
    }
