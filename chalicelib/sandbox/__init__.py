"""Sandbox tenants (issue 36): tenants to try the platform on without live data. `demo` generates the
seeded demo Hausverwaltung they start with."""
