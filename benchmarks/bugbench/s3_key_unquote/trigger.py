"""A key with an accent is found after unquoting; a key with a space arrives as `+`, which
`unquote` leaves, so the object is not found."""

from benchmarks.bugbench import events


def benign():
    key = "uploads/café-2026-11.jpg"
    return {
        "s3": {"expense-receipts": {key: b"\xff\xd8\xff\xe0receipt"}},
        "event": events.s3("expense-receipts", key),
    }


def trigger():
    key = "uploads/taxi receipt.jpg"
    return {
        "s3": {"expense-receipts": {key: b"\xff\xd8\xff\xe0receipt"}},
        "event": events.s3("expense-receipts", key),
    }
