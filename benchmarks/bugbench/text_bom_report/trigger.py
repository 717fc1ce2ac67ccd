"""A report starting with its date loads; the same report saved with a UTF-8 BOM keeps
the BOM before the date, which the search finds but strptime refuses."""

from benchmarks.bugbench import events

REPORT = "2026-11-23\nM-001 12.5\nM-002 7.25\n"


def benign():
    return {
        "s3": {"meter-reports": {"daily/23.txt": REPORT.encode()}},
        "event": events.s3("meter-reports", "daily/23.txt"),
    }


def trigger():
    data = REPORT.encode("utf-8-sig")
    return {
        "s3": {"meter-reports": {"daily/24.txt": data}},
        "event": events.s3("meter-reports", "daily/24.txt"),
    }
