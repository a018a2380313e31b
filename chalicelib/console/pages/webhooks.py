"""Console pages: webhooks (being built)."""
