"""Calls made from "application" code for tests/harness/oracle/test_permission_check.py: each
finding is located at the line of this file that made its call."""


def read(s3, bucket, key):
    return s3.get_object(Bucket=bucket, Key=key)["Body"].read()


def write(s3, bucket, key):
    s3.put_object(Bucket=bucket, Key=key, Body=b"x")  # one write


def write_many(s3, bucket, keys):
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")  # a write per key


def set_aside(s3, bucket, key):
    s3.copy_object(Bucket=bucket, Key=f"rejected/{key}", CopySource={"Bucket": bucket, "Key": key})


def delete(s3, bucket, key):
    s3.delete_object(Bucket=bucket, Key=key)
