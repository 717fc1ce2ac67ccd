"""Unpack every zip named in the event into `<key>.d/`, nested zips included.

Each member is uploaded on its own, so a bundle of many small files costs as many
requests as it has members.
"""

from __future__ import annotations

import io
import urllib.parse
import zipfile
from typing import Any

import boto3

MAX_DEPTH = 2


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    s3 = boto3.client("s3")
    uploaded = 0
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        try:
            body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        except s3.exceptions.NoSuchKey:
            continue
        uploaded += unpack(s3, bucket, f"{key}.d", body, 0)
    return {"uploaded": uploaded}


def unpack(s3: Any, bucket: str, prefix: str, data: bytes, depth: int) -> int:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return 0
    uploaded = 0
    for info in archive.infolist():
        if info.is_dir():
            continue
        try:
            content = archive.read(info)
        except (zipfile.BadZipFile, RuntimeError, ValueError, EOFError):
            continue
        target = f"{prefix}/{info.filename.lstrip('/')}"
        if info.filename.lower().endswith(".zip") and depth < MAX_DEPTH:
            uploaded += unpack(s3, bucket, f"{target}.d", content, depth + 1)
            continue
        s3.put_object(Bucket=bucket, Key=target, Body=content)
        uploaded += 1
    return uploaded
