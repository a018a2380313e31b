"""Console pages: members (being built)."""
