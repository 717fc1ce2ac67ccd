"""A stock of 40 raises nothing; a stock of 3 (under the reorder level of 5) writes an
alert whose ratio is a float."""

from benchmarks.bugbench import events


def _case(stock: int):
    item = {"sku": "K-9", "stock": stock, "usual_stock": 50}
    return {
        "items": {"inventory": [item]},
        "event": events.stream("inventory", {"sku": "K-9"}, new=item, event_name="MODIFY"),
    }


def benign():
    return _case(40)


def trigger():
    return _case(3)
