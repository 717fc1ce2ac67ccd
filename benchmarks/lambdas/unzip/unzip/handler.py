"""Unpack every `.zip` named in the event next to itself, typed by extension, then delete it."""

from __future__ import annotations

import io
import logging
import posixpath
import urllib.parse
import zipfile
from collections.abc import Iterator
from typing import Any

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)

ZIP_EXTENSION = "zip"
LOCAL_FILE_HEADER = b"PK\x03\x04"
DEFAULT_CONTENT_TYPE = "application/octet-stream"
CONTENT_TYPES = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "png": "image/png",
    "html": "text/html",
    "txt": "text/plain",
    "css": "text/css",
    "js": "application/javascript",
    "ico": "image/x-icon",
    "otf": "font/otf",
    "eot": "application/vnd.ms-fontobject",
    "svg": "image/svg+xml",
    "ttf": "font/ttf",
    "woff": "font/woff",
    "mp4": "video/mp4",
    "xml": "application/xml",
    "xsd": "application/xml",
}


def content_type_for(name: str) -> str:
    """MIME type from the entry's extension; unknown or missing -> octet-stream."""
    extension = posixpath.splitext(name)[1][1:].lower()
    return CONTENT_TYPES.get(extension, DEFAULT_CONTENT_TYPE)


def zip_entries(archive: bytes) -> Iterator[tuple[zipfile.ZipInfo, bytes]]:
    """Entries in archive order.

    The original reads the archive as a stream of local file headers, so bytes that do not
    start with one simply hold no entries; a damaged archive still raises BadZipFile.
    """
    if not archive.startswith(LOCAL_FILE_HEADER):
        return
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        for info in zf.infolist():
            yield info, zf.read(info)  # a directory entry reads as b""


def lambda_handler(event: dict[str, Any], context: Any) -> str:
    s3 = boto3.client("s3")
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])

        _, dot, extension = key.rpartition(".")
        if not dot:
            logger.info("unable to detect file type for key %s", key)
            return ""
        if extension.lower() != ZIP_EXTENSION:
            logger.info("skipping non-zip file %s with extension %s", key, extension)
            return ""

        logger.info("extracting zip file %s/%s", bucket, key)
        archive = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        folder = key[: key.rfind("/") + 1]
        for info, data in zip_entries(archive):
            content_type = content_type_for(info.filename)
            logger.info("extracting %s (%d bytes, %s)", info.filename, len(data), content_type)
            s3.put_object(
                Bucket=bucket, Key=folder + info.filename, Body=data, ContentType=content_type
            )

        logger.info("deleting zip file %s/%s", bucket, key)
        s3.delete_object(Bucket=bucket, Key=key)
    return "Ok"
