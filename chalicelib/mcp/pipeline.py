"""meta.pipeline.execute: domain tools in order, later arguments computed from earlier
results. Each step goes through the same dispatch as a single call (the key's scopes, the
tool's validation, the audit trail); the first failure stops the run and says where."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import ApiError, Invalid, invalid_at
from chalicelib.mcp import transform

MAX_STEPS = 25

RunTool = Callable[[CallContext, str, dict[str, Any]], Any]


class StepFailed(ApiError):
    """A step failed: the error of that step, plus what the pipeline did before it."""

    def __init__(self, index: int, tool: str, cause: ApiError, done: list[dict[str, Any]]) -> None:
        kept = f" The {len(done)} step(s) before it ran and stay done." if done else ""
        super().__init__(
            f"Step {index + 1} of the pipeline ({tool}) failed: {cause.detail}{kept}",
            errors=[
                {"path": f"steps[{index}].arguments.{e['path']}", "message": e["message"]} for e in cause.errors or []
            ]
            or None,
            extra={"failedStep": {"index": index, "tool": tool, "status": cause.status}, "completedSteps": done},
        )
        self.status, self.title, self.code = cause.status, cause.title, cause.code  # the step's own error, as it was


def substitute(value: Any, named: dict[str, Any], where: str) -> Any:
    """Arguments with every {"$expr": "..."} replaced by its value over the named results."""
    if isinstance(value, dict):
        if set(value) == {"$expr"}:
            unknown = transform.root_names(value["$expr"]) - set(named)
            if unknown:  # a typo would otherwise pass null on
                so_far = ", ".join(sorted(named)) or "none yet"
                raise invalid_at(
                    where,
                    f"$expr refers to {', '.join(sorted(unknown))}, which no earlier step named with `as` "
                    f"(named so far: {so_far})",
                    code=codes.UNKNOWN_RESULT_NAME,
                )
            return transform.apply(value["$expr"], named, where=where)
        return {key: substitute(item, named, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, named, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def run(ctx: CallContext, steps: list[dict[str, Any]], run_tool: RunTool) -> dict[str, Any]:
    if len(steps) > MAX_STEPS:
        raise Invalid(f"steps: {len(steps)} steps; a pipeline runs at most {MAX_STEPS}.", code=codes.VALIDATION_FAILED)
    named: dict[str, Any] = {}
    done: list[dict[str, Any]] = []
    result: Any = None
    for index, step in enumerate(steps):
        tool = step["tool"]
        try:
            arguments = substitute(step.get("arguments") or {}, named, f"steps[{index}].arguments")
            result = run_tool(ctx, tool, arguments)
            if "transform" in step:
                result = transform.apply(step["transform"], result, where=f"steps[{index}].transform")
            if "as" in step:
                named[step["as"]] = result
                transform.check_size(named, "Together, the results named so far")  # bounded like one answer
        except ApiError as err:
            raise StepFailed(index, tool, err, done) from None
        done.append({"index": index, "tool": tool, **({"as": step["as"]} if "as" in step else {})})
    return {"steps": done, "results": named, "last": result}
