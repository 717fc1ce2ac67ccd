"""Copy the lines of an uploaded ledger CSV into DynamoDB."""
