"""The packaged template as a deployment would see it: parameter values, conditions, and the
intrinsic functions (Ref, Fn::GetAtt, Fn::Sub, Fn::If, Fn::Join, ...) resolved against the
physical names of the resources the stand-in made. An intrinsic this module does not know
is an error, not a guess: the check must not pass on a template CloudFormation reads
differently."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REGION = "eu-central-1"
ACCOUNT = "123456789012"
STACK = "pm-dev"
# Parameters without a default need a value; the others keep the template's default.
# the parameters without a default, as `make deploy` gives them (the artifact bucket: an operator's,
# made by the check beside the template's resources, with what `make deploy` copies into it)
PARAMETERS = {"MailSender": "no-reply@pm-lambda-check.example", "SearchModelBucket": "pm-lambda-check-artifacts"}

NO_VALUE = object()  # AWS::NoValue: the property is left out

# resource logical id, attribute (None for Ref) -> value; filled by the stand-in
Physical = Callable[[str, str | None], Any]


class TemplateError(Exception):
    pass


@dataclass(frozen=True)
class Function:
    name: str  # logical id
    handler: str  # module.attribute
    code: str  # the zip's file name beside sam.json
    runtime: str
    memory_mb: int
    timeout_s: int
    environment: dict[str, str]
    tmp_mb: int  # ephemeral storage (/tmp)
    events: dict[str, Any] = field(default_factory=dict)  # resolved SAM event sources
    log_group: str | None = None  # LoggingConfig's group (resolved), when not Lambda's default


class Template:
    def __init__(self, path: Path, parameters: Mapping[str, str] | None = None) -> None:
        self.path = path
        self.body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        self.resources: dict[str, Any] = self.body["Resources"]
        given = {**PARAMETERS, **(parameters or {})}
        self.parameters: dict[str, Any] = {}
        for name, spec in self.body.get("Parameters", {}).items():
            if name in given:
                self.parameters[name] = given[name]
            elif "Default" in spec:
                self.parameters[name] = spec["Default"]
            else:
                raise TemplateError(f"parameter {name} has no default: give it a value in PARAMETERS")
        self._conditions: dict[str, bool] = {}
        self.physical: Physical = _unresolved

    # conditions -------------------------------------------------------------------------
    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            self._conditions[name] = bool(self._evaluate(self.body["Conditions"][name]))
        return self._conditions[name]

    def _evaluate(self, node: Any) -> Any:
        if isinstance(node, dict) and len(node) == 1:
            ((key, value),) = node.items()
            if key == "Fn::Equals":
                left, right = (self.resolve(v) for v in value)
                return str(left) == str(right)
            if key == "Fn::Not":
                return not self._evaluate(value[0])
            if key == "Fn::And":
                return all(self._evaluate(v) for v in value)
            if key == "Fn::Or":
                return any(self._evaluate(v) for v in value)
            if key == "Condition":
                return self.condition(value)
        return self.resolve(node)

    def exists(self, logical_id: str) -> bool:
        condition = self.resources[logical_id].get("Condition")
        return condition is None or self.condition(condition)

    # intrinsics -------------------------------------------------------------------------
    def resolve(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self.resolve(n) for n in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((key, value),) = node.items()
            if key == "Ref":
                return self._ref(value)
            if key == "Fn::GetAtt":
                logical_id, attribute = value if isinstance(value, list) else value.split(".", 1)
                return self.physical(logical_id, attribute)
            if key == "Fn::Sub":
                return self._sub(value)
            if key == "Fn::If":
                name, then, otherwise = value
                return self.resolve(then if self.condition(name) else otherwise)
            if key == "Fn::Join":
                separator, parts = value
                return separator.join(str(p) for p in self.resolve(parts))
            if key == "Fn::Select":
                index, items = value
                return self.resolve(items)[int(self.resolve(index))]
            if key == "Fn::Split":
                separator, text = value
                return str(self.resolve(text)).split(separator)
            if key.startswith("Fn::") or key == "Condition":
                raise TemplateError(f"intrinsic {key} is not known to the check")
        resolved = {k: self.resolve(v) for k, v in node.items()}
        return {k: v for k, v in resolved.items() if v is not NO_VALUE}

    def _pseudo(self, name: str) -> Any:
        return {
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT,
            "AWS::Partition": "aws",
            "AWS::StackName": STACK,
            "AWS::URLSuffix": "amazonaws.com",
            "AWS::NoValue": NO_VALUE,
        }[name]

    def _ref(self, name: str) -> Any:
        if name.startswith("AWS::"):
            return self._pseudo(name)
        if name in self.parameters:
            return self.parameters[name]
        if name in self.resources:
            return self.physical(name, None)
        raise TemplateError(f"Ref to {name}, which is neither a parameter nor a resource")

    def _sub(self, value: Any) -> str:
        text, variables = (value, {}) if isinstance(value, str) else (value[0], value[1])

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in variables:
                return str(self.resolve(variables[name]))
            if "." in name and not name.startswith("AWS::"):
                logical_id, attribute = name.split(".", 1)
                return str(self.physical(logical_id, attribute))
            return str(self._ref(name))

        return re.sub(r"\$\{([^}!][^}]*)\}", one, text)

    # functions ---------------------------------------------------------------------------
    def functions(self) -> dict[str, Function]:
        found: dict[str, Function] = {}
        for logical_id, resource in self.resources.items():
            if resource["Type"] != "AWS::Serverless::Function" or not self.exists(logical_id):
                continue
            props = resource["Properties"]
            variables = self.resolve(props.get("Environment", {}).get("Variables", {}))
            found[logical_id] = Function(
                name=logical_id,
                handler=props["Handler"],
                code=Path(props["CodeUri"]).name,
                runtime=props["Runtime"],
                memory_mb=int(props.get("MemorySize", 128)),
                timeout_s=int(props.get("Timeout", 3)),
                environment={k: str(v) for k, v in variables.items()},
                tmp_mb=int(self.resolve(props.get("EphemeralStorage", {})).get("Size", 512)),
                events=self.resolve(props.get("Events", {})),
                log_group=self.resolve(props.get("LoggingConfig", {})).get("LogGroup"),
            )
        return found

    def api_paths(self) -> dict[str, dict[str, Any]]:
        """The REST API's routes: path template -> method -> integration (resolved)."""
        apis = [r for r in self.resources.values() if r["Type"] == "AWS::Serverless::Api"]
        if len(apis) != 1:
            raise TemplateError(f"expected one AWS::Serverless::Api, found {len(apis)}")
        body = apis[0]["Properties"]["DefinitionBody"]
        return {
            path: {
                method.upper(): self.resolve(spec.get("x-amazon-apigateway-integration", {}))
                for method, spec in methods.items()
            }
            for path, methods in body["paths"].items()
        }

    def binary_media_types(self) -> list[str]:
        apis = [r for r in self.resources.values() if r["Type"] == "AWS::Serverless::Api"]
        return list(apis[0]["Properties"]["DefinitionBody"].get("x-amazon-apigateway-binary-media-types", []))

    def stage_name(self) -> str:
        apis = [r for r in self.resources.values() if r["Type"] == "AWS::Serverless::Api"]
        return str(self.resolve(apis[0]["Properties"].get("StageName", "api")))


def _unresolved(logical_id: str, attribute: str | None) -> Any:
    raise TemplateError(f"{logical_id} is not made yet (the stand-in resolves physical names)")
