"""Operator tooling: `pmctl` (vendor onboarding, tenant look-ups). Never imported by the service."""
