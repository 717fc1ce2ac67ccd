"""Extract a .zip uploaded to S3 into the same folder, then delete it (port of lambda-unzip)."""
