"""The console: the web application for the people of a property-management company
(console/app.py)."""
