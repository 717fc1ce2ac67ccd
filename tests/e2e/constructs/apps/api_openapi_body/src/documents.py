"""Document scans behind a REST API whose OpenAPI definition routes two operations here:
GET /documents/{documentId} (the stored scan's details) and PUT
/documents/{documentId}/scan (a PNG page, delivered base64-encoded as a binary type)."""

import base64
import json
import os
import struct

import boto3

_s3 = boto3.client("s3")
BUCKET = os.environ["SCANS_BUCKET"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TILE_COLUMNS = 8


def _reply(status, body):
    return {"statusCode": status, "body": json.dumps(body)}


def _scan_key(document_id):
    return f"scans/{document_id}.png"


def describe(document_id):
    try:
        head = _s3.head_object(Bucket=BUCKET, Key=_scan_key(document_id))
    except _s3.exceptions.ClientError:
        return _reply(404, {"message": f"no scan for {document_id}"})
    return _reply(200, {"documentId": document_id, "bytes": head["ContentLength"]})


def store_scan(document_id, event):
    if event["body"] is None or not event["isBase64Encoded"]:
        return _reply(400, {"message": "send the page as image/png"})
    data = base64.b64decode(event["body"])
    if not data.startswith(PNG_SIGNATURE) or len(data) < 24 or data[12:16] != b"IHDR":
        return _reply(415, {"message": "not a PNG image"})
    width, height = struct.unpack(">II", data[16:24])
    if width == 0 or height == 0:
        return _reply(422, {"message": "empty image"})
    # planted bug: pages narrower than the tile grid give zero-pixel tiles
    rows = height // (width // TILE_COLUMNS)
    _s3.put_object(Bucket=BUCKET, Key=_scan_key(document_id), Body=data, ContentType="image/png")
    return _reply(201, {"documentId": document_id, "tiles": rows * TILE_COLUMNS})


def handler(event, context):
    document_id = event["pathParameters"]["documentId"]
    if event["resource"] == "/documents/{documentId}/scan":
        return store_scan(document_id, event)
    return describe(document_id)
