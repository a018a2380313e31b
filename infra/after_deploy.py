"""After `make deploy`: read the stack's outputs, fill the OpenSearch indexes when the stack
has a search domain, and print where the service answers.

    STAGE=dev python -m infra.after_deploy"""

from __future__ import annotations

import os


def outputs(stack: str) -> dict[str, str]:
    import boto3

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}


def main() -> None:
    stage = os.environ.get("STAGE", "dev")
    found = outputs(f"pm-{stage}")
    endpoint = found.get("SearchEndpoint")
    if endpoint:
        os.environ["PM_OPENSEARCH_ENDPOINT"] = endpoint
        from chalicelib.search.index_opensearch import main as index

        index()
    api = found.get("EndpointURL", "(see the stack's outputs)")
    print(f"stage {stage}: API {api}")
    print(f"  MCP: {api.rstrip('/')}/propertymanagement/v2/mcp")
    print(f"  sign up: POST {api.rstrip('/')}/api/platform/v1/command/signup")


if __name__ == "__main__":
    main()
