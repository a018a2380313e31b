"""Console texts: webhooks pages (key -> (German, English))."""

TEXTS: dict[str, tuple[str, str]] = {}
