"""Console texts: keys pages (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {}
