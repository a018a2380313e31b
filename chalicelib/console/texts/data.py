"""Console texts: data pages (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {}
