"""Console texts: activity pages (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {}
