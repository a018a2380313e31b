"""After `make deploy`: read the stack's outputs, give the stack its public address when it has
none yet, fill the OpenSearch indexes when the stack has a search domain, and print where the
service answers.

    STAGE=dev python -m infra.after_deploy

The public address (the PublicUrl parameter, PM_PUBLIC_URL of the functions that mail: links
in mail start with it) defaults to the API's own address, which the template cannot hand to
the functions (the API's integrations name the functions: a function naming the API would be
a circular dependency). So the first deployment leaves it empty and this updates the stack once
with EndpointURL; `aws cloudformation deploy` keeps a parameter's previous value, so later
deployments keep it. A PublicUrl given to `make deploy` (a custom domain) is left alone."""

from __future__ import annotations

import os
from typing import Any

PUBLIC_URL = "PublicUrl"
CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"]  # as `make deploy`


def _cloudformation() -> Any:
    import boto3

    return boto3.client("cloudformation")


def describe(stack: str) -> dict[str, Any]:
    described: dict[str, Any] = _cloudformation().describe_stacks(StackName=stack)["Stacks"][0]
    return described


def outputs(described: dict[str, Any]) -> dict[str, str]:
    return {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}


def public_url_update(described: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The stack's parameters for an update that sets PublicUrl to the API's own address (every
    other parameter keeps its value), or None when PublicUrl is set already (or the stack has no
    such parameter or no EndpointURL)."""
    parameters = {p["ParameterKey"]: p.get("ParameterValue", "") for p in described.get("Parameters", [])}
    endpoint = outputs(described).get("EndpointURL")
    if PUBLIC_URL not in parameters or parameters[PUBLIC_URL] or not endpoint:
        return None
    return [
        {"ParameterKey": key, "ParameterValue": endpoint.rstrip("/")}
        if key == PUBLIC_URL
        else {"ParameterKey": key, "UsePreviousValue": True}
        for key in sorted(parameters)
    ]


def fill_public_url(stack: str, described: dict[str, Any]) -> str | None:
    """Update the stack (same template, same parameters) with its own address as PublicUrl when
    it has none; the address set, or None when nothing was to do."""
    parameters = public_url_update(described)
    if parameters is None:
        return None
    client = _cloudformation()
    client.update_stack(StackName=stack, UsePreviousTemplate=True, Parameters=parameters, Capabilities=CAPABILITIES)
    print(f"stack {stack}: setting {PUBLIC_URL} to the API's address (links in mail), waiting for the update")
    client.get_waiter("stack_update_complete").wait(StackName=stack)
    return next(str(p["ParameterValue"]) for p in parameters if p["ParameterKey"] == PUBLIC_URL)


def main() -> None:
    stage = os.environ.get("STAGE", "dev")
    stack = f"pm-{stage}"
    described = describe(stack)
    fill_public_url(stack, described)
    found = outputs(described)
    endpoint = found.get("SearchEndpoint")
    if endpoint:
        os.environ["PM_OPENSEARCH_ENDPOINT"] = endpoint
        from chalicelib.search.index_opensearch import main as index

        index()
    api = found.get("EndpointURL", "(see the stack's outputs)")
    print(f"stage {stage}: API {api}")
    print(f"  MCP: {api.rstrip('/')}/propertymanagement/v2/mcp")
    print(f"  sign up: POST {api.rstrip('/')}/api/platform/v1/command/signup (a code goes to the address)")
    print(f"  console: {api.rstrip('/')}/console")
    print("  mail: from the MailSender address once SES verified it (see docs/deployment.md)")


if __name__ == "__main__":
    main()
