"""`make bench`: every benchmark, one after the other, each printing its table."""

from __future__ import annotations

from bench import catalogue, cold_start, foundation, uploads, webhooks

if __name__ == "__main__":
    print(cold_start.main())
    print()
    print(foundation.main())
    print()
    print(catalogue.main())
    print()
    print(webhooks.main())
    print()
    print(uploads.main())
