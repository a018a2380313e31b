"""The change stream: DynamoDB Streams records of entity items become audit records (and,
next, webhook events)."""
