"""Crafted worlds for the unzip benchmark: one test per decision-point arm."""

from __future__ import annotations

import io
import zipfile

import pytest
from botocore.exceptions import ClientError

BUCKET = "archives"


@pytest.fixture
def handler(aws, load_handler):
    aws.s3.create_bucket(Bucket=BUCKET)
    return load_handler("unzip.handler")


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def put(aws, key: str, body: bytes) -> None:
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=body)


def objects(aws) -> dict[str, tuple[bytes, str]]:
    """Every object in the bucket as key -> (body, content type)."""
    listing = aws.s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    result = {}
    for entry in listing:
        response = aws.s3.get_object(Bucket=BUCKET, Key=entry["Key"])
        result[entry["Key"]] = (response["Body"].read(), response["ContentType"])
    return result


def multi_event(s3_event, *keys: str) -> dict:
    return {"Records": [s3_event(BUCKET, key)["Records"][0] for key in keys]}


def test_entries_are_extracted_into_the_archive_folder_and_archive_deleted(aws, handler, s3_event):
    put(
        aws,
        "site/v1.zip",
        zip_bytes(
            {
                "index.html": b"<html></html>",
                "img/Logo.PNG": b"\x89PNG",
                "docs/": b"",
                "data.bin": b"\x00\x01",
                "README": b"read me",
                "fonts.d/font.woff": b"wOFF",
            }
        ),
    )

    assert handler.lambda_handler(s3_event(BUCKET, "site/v1.zip"), None) == "Ok"

    assert objects(aws) == {
        "site/index.html": (b"<html></html>", "text/html"),
        "site/img/Logo.PNG": (b"\x89PNG", "image/png"),
        "site/docs/": (b"", "application/octet-stream"),
        "site/data.bin": (b"\x00\x01", "application/octet-stream"),
        "site/README": (b"read me", "application/octet-stream"),
        "site/fonts.d/font.woff": (b"wOFF", "font/woff"),
    }


def test_url_encoded_key_and_upper_case_extension(aws, handler, s3_event):
    key = "my uploads/Batch+1.ZIP"
    put(aws, key, zip_bytes({"a.txt": b"A"}))

    assert handler.lambda_handler(s3_event(BUCKET, key), None) == "Ok"
    assert objects(aws) == {"my uploads/a.txt": (b"A", "text/plain")}


def test_archive_at_bucket_root_extracts_to_root(aws, handler, s3_event):
    put(aws, "bundle.zip", zip_bytes({"style.css": b"p{}"}))

    assert handler.lambda_handler(s3_event(BUCKET, "bundle.zip"), None) == "Ok"
    assert objects(aws) == {"style.css": (b"p{}", "text/css")}


def test_key_without_dot_returns_empty_and_keeps_object(aws, handler, s3_event):
    put(aws, "archive", zip_bytes({"a.txt": b"A"}))

    assert handler.lambda_handler(s3_event(BUCKET, "archive"), None) == ""
    assert list(objects(aws)) == ["archive"]


def test_non_zip_extension_is_skipped(aws, handler, s3_event):
    put(aws, "notes.txt", zip_bytes({"a.txt": b"A"}))

    assert handler.lambda_handler(s3_event(BUCKET, "notes.txt"), None) == ""
    assert list(objects(aws)) == ["notes.txt"]


@pytest.mark.parametrize("body", [b"", b"id,name\n1,x\n", zip_bytes({})])
def test_bytes_without_local_file_header_hold_no_entries(aws, handler, s3_event, body):
    put(aws, "empty.zip", body)

    assert handler.lambda_handler(s3_event(BUCKET, "empty.zip"), None) == "Ok"
    assert objects(aws) == {}


def test_corrupted_zip_propagates_and_keeps_archive(aws, handler, s3_event):
    archive = zip_bytes({"a.txt": b"A" * 100})
    put(aws, "broken.zip", archive[: len(archive) - 30])

    with pytest.raises(zipfile.BadZipFile):
        handler.lambda_handler(s3_event(BUCKET, "broken.zip"), None)
    assert list(objects(aws)) == ["broken.zip"]


def test_damaged_entry_propagates_after_earlier_entries(aws, handler, s3_event):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("a.txt", b"first entry")
        zf.writestr("b.txt", b"second entry")
    put(aws, "crc.zip", buffer.getvalue().replace(b"second entry", b"SECOND entry"))

    with pytest.raises(zipfile.BadZipFile, match="CRC"):
        handler.lambda_handler(s3_event(BUCKET, "crc.zip"), None)
    assert set(objects(aws)) == {"a.txt", "crc.zip"}


def test_every_record_is_processed(aws, handler, s3_event):
    put(aws, "a/one.zip", zip_bytes({"1.js": b"1"}))
    put(aws, "b/two.zip", zip_bytes({"2.svg": b"<svg/>"}))

    event = multi_event(s3_event, "a/one.zip", "b/two.zip")
    assert handler.lambda_handler(event, None) == "Ok"

    assert objects(aws) == {
        "a/1.js": (b"1", "application/javascript"),
        "b/2.svg": (b"<svg/>", "image/svg+xml"),
    }


def test_a_skipped_record_ends_the_invocation(aws, handler, s3_event):
    put(aws, "one.zip", zip_bytes({"1.txt": b"1"}))
    put(aws, "photo.jpg", b"\xff\xd8")
    put(aws, "two.zip", zip_bytes({"2.txt": b"2"}))

    event = multi_event(s3_event, "one.zip", "photo.jpg", "two.zip")
    assert handler.lambda_handler(event, None) == ""

    assert set(objects(aws)) == {"1.txt", "photo.jpg", "two.zip"}


def test_same_archive_twice_fails_on_the_second_read(aws, handler, s3_event):
    put(aws, "one.zip", zip_bytes({"1.txt": b"1"}))

    with pytest.raises(ClientError, match="NoSuchKey"):
        handler.lambda_handler(multi_event(s3_event, "one.zip", "one.zip"), None)
    assert set(objects(aws)) == {"1.txt"}


def test_event_without_records_does_nothing(handler):
    assert handler.lambda_handler({"Records": []}, None) == "Ok"
