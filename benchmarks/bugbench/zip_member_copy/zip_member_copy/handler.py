"""Supplier feed unpacking: every CSV in an uploaded archive is staged for the importer."""

import io
import logging
import os
import urllib.parse
import zipfile

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
MAX_MEMBER_BYTES = 5 * 1024 * 1024


def copy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, prefix: str) -> None:
    data = archive.read(info)
    s3.put_object(Bucket=os.environ["STAGING_BUCKET"], Key=f"{prefix}/{info.filename}", Body=data)


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    body = io.BytesIO(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    if not zipfile.is_zipfile(body):
        logger.warning("%s is not a zip archive", key)
        return {"staged": 0}
    prefix = key.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    staged = 0
    with zipfile.ZipFile(body) as archive:
        for info in archive.infolist():
            if info.is_dir() or not info.filename.lower().endswith(".csv"):
                continue
            if info.file_size > MAX_MEMBER_BYTES:
                logger.warning("%s: %s too large, skipped", key, info.filename)
                continue
            copy_member(archive, info, prefix)
            staged += 1
    logger.info("%s: %d members staged", key, staged)
    return {"staged": staged}
