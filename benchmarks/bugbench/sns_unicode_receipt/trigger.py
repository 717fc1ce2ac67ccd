"""A receipt in Latin letters prints; an item named with an emoji has no cp437 code, and
the receipt is silently not printed."""

import json

from benchmarks.bugbench import events


def _sale(item: str) -> str:
    return json.dumps(
        {
            "sale_id": "s-1",
            "store": "Corner Café",
            "items": [{"name": item, "price": "3.20"}],
            "total": "3.20",
        }
    )


def benign():
    return {"event": events.sns("sales", _sale("Flat white"))}


def trigger():
    return {"event": events.sns("sales", _sale("Iced latte 🧊"))}
