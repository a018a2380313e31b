"""Exports of a tenant (issue 34): exports.create queues one, the export worker writes it."""
