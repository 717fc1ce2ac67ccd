"""Load a gzip-compressed CSV dropped into S3 into DynamoDB, one item per row."""
