"""Crafted worlds for the s3_thumbnail benchmark: one test per decision-point arm."""

from __future__ import annotations

import io
import random

import pytest
from botocore.exceptions import ClientError
from PIL import Image, UnidentifiedImageError

BUCKET = "photos"


@pytest.fixture
def handler(aws, load_handler):
    aws.s3.create_bucket(Bucket=BUCKET)
    return load_handler("s3_thumbnail.handler")


def image_bytes(size: tuple[int, int], fmt: str, mode: str = "RGB", color="red") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt)
    return buffer.getvalue()


def put(aws, key: str, body: bytes) -> None:
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=body)


def keys(aws) -> set[str]:
    return {obj["Key"] for obj in aws.s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])}


def read_thumbnail(aws, key: str) -> tuple[Image.Image, str]:
    response = aws.s3.get_object(Bucket=BUCKET, Key=key)
    return Image.open(io.BytesIO(response["Body"].read())), response["ContentType"]


def test_jpg_is_shrunk_to_fit_and_written_as_jpeg(aws, handler, s3_event):
    put(aws, "cat.jpg", image_bytes((200, 50), "JPEG"))

    assert handler.lambda_handler(s3_event(BUCKET, "cat.jpg"), None) == "Ok"

    thumbnail, content_type = read_thumbnail(aws, "resized-cat.jpg")
    assert (thumbnail.format, thumbnail.size, content_type) == ("JPEG", (100, 25), "image/jpeg")


def test_png_is_upscaled_and_transparency_painted_white(aws, handler, s3_event):
    put(aws, "icon.png", image_bytes((10, 20), "PNG", mode="RGBA", color=(0, 0, 0, 0)))

    assert handler.lambda_handler(s3_event(BUCKET, "icon.png"), None) == "Ok"

    thumbnail, content_type = read_thumbnail(aws, "resized-icon.png")
    assert (thumbnail.format, thumbnail.size, content_type) == ("PNG", (50, 100), "image/png")
    assert thumbnail.mode == "RGB"
    assert thumbnail.getpixel((25, 50)) == (255, 255, 255)


def test_event_key_is_url_decoded(aws, handler, s3_event):
    key = "holiday pics/beach+sun 100%.png"
    put(aws, key, image_bytes((100, 100), "PNG"))

    event = s3_event(BUCKET, key)
    assert event["Records"][0]["s3"]["object"]["key"] == "holiday+pics/beach%2Bsun+100%25.png"
    assert handler.lambda_handler(event, None) == "Ok"

    assert "resized-" + key in keys(aws)


def test_malformed_escape_in_key_raises(handler, s3_event):
    event = s3_event(BUCKET, "x.png")
    event["Records"][0]["s3"]["object"]["key"] = "bad%zzname.png"

    with pytest.raises(ValueError, match="malformed"):
        handler.lambda_handler(event, None)


def test_key_without_dot_is_ignored(aws, handler, s3_event):
    put(aws, "README", image_bytes((10, 10), "PNG"))

    assert handler.lambda_handler(s3_event(BUCKET, "README"), None) == ""
    assert keys(aws) == {"README"}


@pytest.mark.parametrize("key", ["anim.gif", "photo.JPG", "photo.jpeg", "archive.png.zip"])
def test_other_extensions_are_skipped(aws, handler, s3_event, key):
    put(aws, key, image_bytes((10, 10), "PNG"))

    assert handler.lambda_handler(s3_event(BUCKET, key), None) == ""
    assert keys(aws) == {key}


def test_gif_content_under_png_name_is_converted(aws, handler, s3_event):
    put(aws, "sneaky.png", image_bytes((40, 20), "GIF", mode="P", color=3))

    assert handler.lambda_handler(s3_event(BUCKET, "sneaky.png"), None) == "Ok"

    thumbnail, _ = read_thumbnail(aws, "resized-sneaky.png")
    assert (thumbnail.format, thumbnail.size) == ("PNG", (100, 50))


def test_not_an_image_propagates(aws, handler, s3_event):
    put(aws, "notes.png", b"id,grade\n1,90\n")

    with pytest.raises(UnidentifiedImageError):
        handler.lambda_handler(s3_event(BUCKET, "notes.png"), None)


def test_truncated_image_propagates(aws, handler, s3_event):
    pixels = random.Random(0).randbytes(64 * 64 * 3)  # incompressible, so IDAT is large
    buffer = io.BytesIO()
    Image.frombytes("RGB", (64, 64), pixels).save(buffer, format="PNG")
    full = buffer.getvalue()
    put(aws, "cut.png", full[: len(full) // 2])

    with pytest.raises(OSError, match="truncated"):
        handler.lambda_handler(s3_event(BUCKET, "cut.png"), None)
    assert keys(aws) == {"cut.png"}


@pytest.mark.parametrize("size", [(101, 1), (1, 150)])
def test_aspect_ratio_over_100_to_1_raises(aws, handler, s3_event, size):
    put(aws, "strip.png", image_bytes(size, "PNG"))

    with pytest.raises(ValueError, match="cannot scale"):
        handler.lambda_handler(s3_event(BUCKET, "strip.png"), None)


def test_aspect_ratio_exactly_100_to_1_fits(aws, handler, s3_event):
    put(aws, "strip.png", image_bytes((100, 1), "PNG"))

    assert handler.lambda_handler(s3_event(BUCKET, "strip.png"), None) == "Ok"
    thumbnail, _ = read_thumbnail(aws, "resized-strip.png")
    assert thumbnail.size == (100, 1)


def test_missing_object_propagates(handler, s3_event):
    with pytest.raises(ClientError, match="NoSuchKey"):
        handler.lambda_handler(s3_event(BUCKET, "gone.jpg"), None)


def test_put_service_error_is_fatal(aws, handler, s3_event, monkeypatch):
    put(aws, "cat.jpg", image_bytes((30, 30), "JPEG"))

    def refuse(**kwargs):
        raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "PutObject")

    # moto accepts any put into an existing bucket, so the service error is injected.
    monkeypatch.setattr(handler.s3, "put_object", refuse)

    with pytest.raises(handler.ThumbnailFatalError) as excinfo:
        handler.lambda_handler(s3_event(BUCKET, "cat.jpg"), None)
    assert isinstance(excinfo.value.__cause__, ClientError)
