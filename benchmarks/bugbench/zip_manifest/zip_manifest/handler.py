"""Release bundles: each component manifest (`*.json` in the archive) records its version."""

import io
import json
import logging
import os
import urllib.parse
import zipfile

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["RELEASES_TABLE"])


def read_manifests(archive: zipfile.ZipFile) -> list[dict]:
    manifests = []
    for name in archive.namelist():
        if not name.endswith(".json"):
            continue
        try:
            with archive.open(name) as member:
                manifests.append(json.load(member))
        except json.JSONDecodeError:
            logger.warning("manifest %s is not JSON", name)
        except Exception:
            logger.exception("skipping manifest %s", name)
    return manifests


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    body = io.BytesIO(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    if not zipfile.is_zipfile(body):
        return {"recorded": 0}
    recorded = 0
    with zipfile.ZipFile(body) as archive:
        for manifest in read_manifests(archive):
            if not isinstance(manifest, dict):
                continue
            component, version = manifest.get("component"), manifest.get("version")
            if isinstance(component, str) and component and isinstance(version, str):
                table.put_item(Item={"component": component, "version": version, "bundle": key})
                recorded += 1
    return {"recorded": recorded}
