"""The docs site's generated pages (docs/reference/), written from the code so they cannot drift
from it: the operation reference from the registry (one page per area, each operation as
chalicelib/docs.py renders it, with the search examples' "Ask it like" requests), the error codes
from chalicelib/error_codes.py, the settings and limits from chalicelib/config.py.

    .venv/bin/python -m docs_gen      (rewrites docs/reference/; `make docs` then builds the site)

The files are committed; tests/contract/test_docs_site.py renders them again and compares. The
package lives beside chalicelib, not in it: no Lambda bundle carries it."""
