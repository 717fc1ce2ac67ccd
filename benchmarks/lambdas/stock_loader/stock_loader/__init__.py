"""Load historic stock prices from an uploaded CSV into DynamoDB (port of load-historic-data)."""
