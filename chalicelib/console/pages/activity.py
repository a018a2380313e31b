"""Console pages: activity (being built)."""
