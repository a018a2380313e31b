"""The service's structured logger (Powertools). Request id, tenant, agent and operation
are appended per request by http.py; secrets and Authorization headers never are."""

from aws_lambda_powertools import Logger

logger = Logger(service="propertymanagement")
