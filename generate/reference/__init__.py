"""The docs site's generated pages (docs/reference/), written from the code so they cannot drift
from it: the operation reference from the registry (one page per area, each operation as
chalicelib/docs.py renders it, with the search examples' "Ask it like" requests), the error codes
from chalicelib/error_codes.py, the settings and limits from chalicelib/config.py.

    make generate      (rewrites docs/reference/ with the other generated files; `make docs` builds the site)

The files are committed; `make check` and tests/contract/test_docs_site.py render them again and
compare."""

from generate.reference.pages import stale, write

__all__ = ["stale", "write"]
