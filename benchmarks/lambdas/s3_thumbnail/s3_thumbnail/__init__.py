"""Resize a JPG/PNG uploaded to S3 to fit 100x100 (port of the s3-java sample)."""
