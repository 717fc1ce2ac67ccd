"""An "Object Created" event registers the asset; on "Object Deleted" the object is gone,
and the handler asks S3 for its metadata before looking at the event type."""

from benchmarks.bugbench import events


def benign():
    key = "video/launch.mp4"
    return {
        "s3": {"media-library": {key: b"\x00\x00\x00\x18ftypmp42"}},
        "event": events.eventbridge_s3("media-library", key),
    }


def trigger():
    return {
        "s3": {"media-library": {}},
        "event": events.eventbridge_s3("media-library", "video/old.mp4", "Object Deleted"),
    }
