"""A JSON booking gets 201; a body that is not JSON is the client's mistake but is answered
with 500 by the catch-all."""

from benchmarks.bugbench import events


def benign():
    return {
        "event": events.api(
            "POST", "/bookings", body={"party_size": 4, "slot": "2026-12-24T19:30", "name": "Ng"}
        )
    }


def trigger():
    return {
        "event": events.api(
            "POST",
            "/bookings",
            body="party_size=4&slot=19:30",
            content_type="application/x-www-form-urlencoded",
        )
    }
