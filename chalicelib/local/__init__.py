"""The embedded stack `make serve` and the tests run on: moto's server on loopback in
place of DynamoDB (with Streams), S3 and SQS."""
