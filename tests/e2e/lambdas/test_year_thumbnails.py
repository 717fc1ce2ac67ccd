"""Crafted worlds for the year_thumbnails benchmark (the SpotOn motivating example)."""

from __future__ import annotations

import io
import logging
import struct
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from PIL import Image, UnidentifiedImageError

BUCKET = "photo-album"
SHEET = "thumbnails/2008.jpg"

EventT = Callable[..., dict[str, Any]]


def photo(
    *,
    original: str | None = None,
    date_time: str | None = None,
    size: tuple[int, int] = (320, 240),
    fmt: str = "JPEG",
) -> bytes:
    """A real image whose EXIF carries DateTimeOriginal (Exif IFD) and/or DateTime (IFD0)."""
    exif = Image.Exif()
    if date_time is not None:
        exif[306] = date_time
    if original is not None:
        exif.get_ifd(0x8769)[36867] = original
    out = io.BytesIO()
    # bytes, not the Exif object: Pillow's PNG writer drops an Exif whose IFD0 is empty
    Image.new("RGB", size, "navy").save(out, format=fmt, exif=exif.tobytes())
    return out.getvalue()


def photo_with_numeric_date_time() -> bytes:
    """EXIF whose DateTime entry is declared SHORT (2008), not ASCII: Pillow reads an int."""
    entry = struct.pack("<HHII", 306, 3, 1, 2008)
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + entry + struct.pack("<I", 0)
    out = io.BytesIO()
    Image.new("RGB", (50, 50), "red").save(out, format="JPEG", exif=b"Exif\x00\x00" + tiff)
    return out.getvalue()


@pytest.fixture
def world(aws: Any) -> Any:
    aws.s3.create_bucket(Bucket=BUCKET)
    return aws


@pytest.fixture
def handler(world: Any, load_handler: Callable[[str], ModuleType]) -> ModuleType:
    """Imported inside the mock: the module builds its S3 client at import time."""
    return load_handler("year_thumbnails.handler")


def put(world: Any, objects: dict[str, bytes]) -> None:
    for key, body in objects.items():
        world.s3.put_object(Bucket=BUCKET, Key=key, Body=body)


def sheet(world: Any) -> Image.Image | None:
    listed = world.s3.list_objects_v2(Bucket=BUCKET, Prefix=SHEET).get("Contents", [])
    if not listed:
        return None
    body = world.s3.get_object(Bucket=BUCKET, Key=SHEET)["Body"].read()
    return Image.open(io.BytesIO(body))


def test_photos_from_2008_become_one_contact_sheet(
    world: Any, handler: ModuleType, s3_event: EventT, caplog: pytest.LogCaptureFixture
) -> None:
    put(
        world,
        {
            "photos/2008/a.jpg": photo(original="2008:06:01 12:00:00", size=(400, 200)),
            "photos/2008/b.JPG": photo(date_time="2008:12:31 23:59:59", size=(100, 300)),
            "photos/2008/c.jpg": photo(original="2007:06:01 12:00:00"),
            "photos/2008/d.jpeg": photo(),
            "photos/2008/e.jpg": photo(original="2008-06-01 12:00:00"),
            "photos/2008/notes.txt": b"not a photo, never opened",
            "photos/2008/": b"",
        },
    )
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, "photos/2008/a.jpg"), None) == 2
    contact = sheet(world)
    assert contact is not None
    assert contact.format == "JPEG"
    assert contact.size == (100 + 33, 100)  # 400x200 -> 100x50, 100x300 -> 33x100
    head = world.s3.head_object(Bucket=BUCKET, Key=SHEET)
    assert head["ContentType"] == "image/jpeg"
    assert "skipping photos/2008/d.jpeg" in caplog.text
    assert "skipping photos/2008/e.jpg" in caplog.text


def test_original_date_wins_over_date_time(
    world: Any, handler: ModuleType, s3_event: EventT
) -> None:
    body = photo(original="2009:01:01 00:00:00", date_time="2008:01:01 00:00:00")
    put(world, {"photos/p.jpg": body})
    assert handler.lambda_handler(s3_event(BUCKET, "photos/p.jpg"), None) == 0
    assert sheet(world) is None


def test_no_photo_from_2008_writes_nothing(
    world: Any, handler: ModuleType, s3_event: EventT, caplog: pytest.LogCaptureFixture
) -> None:
    put(world, {"photos/p.jpg": photo(original="2024:05:05 10:00:00")})
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, "photos/p.jpg"), None) == 0
    assert sheet(world) is None
    assert "no photo under 'photos/' was taken in 2008" in caplog.text


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(photo(date_time="2008:02:30 00:00:00"), id="impossible-date"),
        pytest.param(photo(date_time="2008"), id="year-only"),
        pytest.param(photo_with_numeric_date_time(), id="numeric-tag"),
    ],
)
def test_unreadable_dates_are_skipped(
    world: Any,
    handler: ModuleType,
    s3_event: EventT,
    caplog: pytest.LogCaptureFixture,
    body: bytes,
) -> None:
    put(world, {"photos/p.jpg": body})
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, "photos/p.jpg"), None) == 0
    assert "skipping photos/p.jpg: no readable EXIF date" in caplog.text


def test_only_the_event_folder_is_listed(
    world: Any, handler: ModuleType, s3_event: EventT, caplog: pytest.LogCaptureFixture
) -> None:
    in_2008 = photo(original="2008:01:01 00:00:00", size=(50, 50))
    put(
        world,
        {
            "my photos/2008/a.png": photo(original="2008:01:01 00:00:00", fmt="PNG"),
            "my photos/2008/sub/b.png": photo(date_time="2008:01:01 00:00:00", fmt="PNG"),
            "my photos/2008/c.gif": photo(original="2008:01:01 00:00:00", fmt="GIF"),
            "my photos/2009/d.jpg": in_2008,
            "e.jpg": in_2008,
        },
    )
    event = s3_event(BUCKET, "my photos/2008/a.png")  # the event key arrives URL-encoded
    with caplog.at_level(logging.INFO, logger=handler.__name__):
        assert handler.lambda_handler(event, None) == 2
    assert sheet(world) is not None
    # GIF carries no EXIF (Pillow neither writes nor reads it there), so a GIF never counts
    assert "skipping my photos/2008/c.gif: no readable EXIF date" in caplog.text


def test_a_root_key_lists_the_whole_bucket(
    world: Any, handler: ModuleType, s3_event: EventT
) -> None:
    in_2008 = photo(original="2008:01:01 00:00:00", size=(50, 50))
    put(world, {"a.jpg": in_2008, "photos/b.jpg": in_2008, "photos/2008/c.jpg": in_2008})
    assert handler.lambda_handler(s3_event(BUCKET, "a.jpg"), None) == 3
    contact = sheet(world)
    assert contact is not None
    assert contact.size == (150, 50)


def test_an_image_extension_on_other_bytes_propagates(
    world: Any, handler: ModuleType, s3_event: EventT
) -> None:
    put(world, {"photos/broken.jpg": b"GIF89a but not really"})
    with pytest.raises(UnidentifiedImageError):
        handler.lambda_handler(s3_event(BUCKET, "photos/broken.jpg"), None)
    assert sheet(world) is None


def test_a_truncated_photo_from_2008_propagates(
    world: Any, handler: ModuleType, s3_event: EventT
) -> None:
    """The EXIF header survives truncation; decoding the pixels for the thumbnail does not."""
    body = photo(original="2008:01:01 00:00:00", size=(640, 480))
    put(world, {"photos/cut.jpg": body[: len(body) // 2]})
    with pytest.raises(OSError, match="truncated"):
        handler.lambda_handler(s3_event(BUCKET, "photos/cut.jpg"), None)
