"""Property-management data platform: the code behind app.py."""

__version__ = "2.0.0"
