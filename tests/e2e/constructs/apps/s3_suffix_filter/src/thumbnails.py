"""Write a thumbnail record for each uploaded photo.

The notification's key filter delivers only keys under `uploads/` ending in `.jpeg`, so
the key is split into its folder-relative name and extension without checks.
"""

from urllib.parse import unquote_plus

import boto3

PREFIX = "uploads/"
THUMBNAIL_EXTENSIONS = {"jpeg": "jpg"}

s3 = boto3.client("s3")


def handler(event, context):
    written = []
    for record in event["Records"]:
        bucket = record["s3"]["bucket"]["name"]
        key = unquote_plus(record["s3"]["object"]["key"])
        name = key[len(PREFIX) :]
        stem, extension = name.rsplit(".", 1)
        thumbnail = f"thumbnails/{stem}.{THUMBNAIL_EXTENSIONS[extension]}"
        data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        # planted bug: photos under 1 KiB have no size in KiB to divide by
        compression = round(100 / (len(data) // 1024), 1)
        s3.put_object(Bucket=bucket, Key=thumbnail, Body=data[:512])
        written.append({"thumbnail": thumbnail, "compression": compression})
    return {"written": written}
