"""A link shortener called through its function URL: GET /<code> redirects, POST creates a
link from a JSON body; any other method is refused.  Lambda sends function URL requests
as HTTP API payload 2.0 events."""

import base64
import hashlib
import json
import os

import boto3

_table = boto3.resource("dynamodb").Table(os.environ["LINKS_TABLE"])


def _reply(status, body, headers=None):
    return {"statusCode": status, "headers": headers or {}, "body": json.dumps(body)}


def resolve(code):
    if not code:
        return _reply(404, {"message": "no link code"})
    item = _table.get_item(Key={"code": code}).get("Item")
    target = item.get("url") if item else None
    if not isinstance(target, str):
        return _reply(404, {"message": f"unknown link {code}"})
    return _reply(301, {}, {"Location": target})


def create(event):
    body = event.get("body") or ""
    if event["isBase64Encoded"]:
        body = base64.b64decode(body)
    try:
        link = json.loads(body)
    except ValueError:
        return _reply(400, {"message": "expected a JSON object"})
    if not isinstance(link, dict):
        return _reply(400, {"message": "expected a JSON object"})
    url = link["url"]  # planted bug: a link without a url
    if not isinstance(url, str) or not url:
        return _reply(400, {"message": "url must be a non-empty string"})
    code = hashlib.sha256(url.encode("utf-8", "replace")).hexdigest()[:8]
    _table.put_item(Item={"code": code, "url": url})
    domain = event["requestContext"]["domainName"]
    return _reply(201, {"short": f"https://{domain}/{code}"})


def handler(event, context):
    method = event["requestContext"]["http"]["method"]
    if method == "GET":
        return resolve(event["rawPath"].strip("/").split("/")[-1])
    if method == "POST":
        return create(event)
    return _reply(405, {"message": f"{method} not allowed"})
