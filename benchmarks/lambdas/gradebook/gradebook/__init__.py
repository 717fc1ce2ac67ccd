"""Average each student's grades from an uploaded CSV into DynamoDB (port of anishsana)."""
