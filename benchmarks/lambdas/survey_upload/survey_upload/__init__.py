"""Upload breastfeeding-study surveys from S3 into DynamoDB."""
