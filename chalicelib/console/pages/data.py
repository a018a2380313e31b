"""Console pages: data (being built)."""
