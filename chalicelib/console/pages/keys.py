"""Console pages: keys (being built)."""
