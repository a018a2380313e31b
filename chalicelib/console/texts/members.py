"""Console texts: members pages (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {}
