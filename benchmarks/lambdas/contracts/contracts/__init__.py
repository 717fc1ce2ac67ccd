"""Record uploaded contracts in DynamoDB, once per contract code."""
