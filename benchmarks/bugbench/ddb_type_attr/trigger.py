"""A score going from 10 to 25 adds 15; the admin console stores an edited score as a
string attribute (`{"S": "30"}`), which has no "N"."""

from benchmarks.bugbench import events


def benign():
    event = events.stream(
        "players",
        {"player_id": "p-1"},
        new={"player_id": "p-1", "score": 25},
        old={"player_id": "p-1", "score": 10},
        event_name="MODIFY",
    )
    return {"items": {"players": [{"player_id": "p-1", "score": 25}]}, "event": event}


def trigger():
    image = {"player_id": {"S": "p-2"}, "score": {"S": "30"}}
    event = events.stream_raw("players", {"player_id": "p-2"}, image, event_name="MODIFY")
    return {"items": {"players": [{"player_id": "p-2", "score": "30"}]}, "event": event}
