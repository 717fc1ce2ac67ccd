"""An ISO day is looked up; a day in another format (23-11-2026) is a client error that the
broad except answers with 500."""

from benchmarks.bugbench import events


def _get(day: str):
    return events.api(
        "GET", f"/reports/{day}", resource="/reports/{day}", path_parameters={"day": day}
    )


def benign():
    return {
        "items": {"daily-reports": [{"day": "2026-11-23", "revenue": 1520}]},
        "event": _get("2026-11-23"),
    }


def trigger():
    return {"event": _get("23-11-2026")}
