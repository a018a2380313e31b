"""Single-table storage on DynamoDB through pynamodb."""
