"""A UTF-8 price list loads; the same list saved by a Windows till (cp1252) does not decode."""

from benchmarks.bugbench import events

TEXT = "sku,description,price\nC-100,Café crème 250g,4.95\nT-200,Tea,2.10\n"


def benign():
    return {
        "s3": {"price-drops": {"shop7.csv": TEXT.encode("utf-8")}},
        "event": events.s3("price-drops", "shop7.csv"),
    }


def trigger():
    return {
        "s3": {"price-drops": {"shop9.csv": TEXT.encode("cp1252")}},
        "event": events.s3("price-drops", "shop9.csv"),
    }
