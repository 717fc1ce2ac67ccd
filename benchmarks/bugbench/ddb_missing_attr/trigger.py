"""A user signed up with an email is welcomed; a user created by the phone-only signup has
no `email` attribute in the stream image."""

from benchmarks.bugbench import events


def benign():
    user = {"user_id": "u-1", "email": "ann@example.com", "locale": "de"}
    return {
        "items": {"users": [user]},
        "event": events.stream("users", {"user_id": "u-1"}, new=user),
    }


def trigger():
    user = {"user_id": "u-2", "phone": "+15550100"}
    return {
        "items": {"users": [user]},
        "event": events.stream("users", {"user_id": "u-2"}, new=user),
    }
