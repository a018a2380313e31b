"""meta.pipeline.execute: domain tools in order, later arguments computed from earlier
results. Each step goes through the same dispatch as a single call (the key's scopes, the
tool's validation, the audit trail); the first failure stops the run and says where.

A step's `{"$expr": ...}` values are evaluated only after the step has passed everything
that needs no evaluation: how many there are (at most MAX_EXPRESSIONS_PER_STEP in a step,
MAX_EXPRESSIONS_PER_PIPELINE in the pipeline, counted before the first step runs), the tool,
the key's scope, the arguments' shape with each `$expr` standing for any value, each
expression compiled and naming only earlier results, and the key's limit, which counts each
expression as a call. Every evaluation of the pipeline then draws on one Budget."""

from __future__ import annotations

from typing import Any

from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import ApiError, Invalid
from chalicelib.mcp import domain_tools, transform

MAX_STEPS = 25
MAX_EXPRESSIONS_PER_STEP = 20
MAX_EXPRESSIONS_PER_PIPELINE = 50

Placeholder = tuple[str, Any]  # (its path within the step's arguments, the expression)


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


def is_placeholder(value: Any) -> bool:
    """An argument value {"$expr": "..."}, replaced by the expression's value."""
    return isinstance(value, dict) and len(value) == 1 and "$expr" in value


def placeholders(arguments: Any) -> list[Placeholder]:
    """Every `$expr` of a step's arguments, in the order they are written."""
    found: list[Placeholder] = []
    pending: list[tuple[str, Any]] = [("", arguments)]
    while pending:
        path, value = pending.pop()
        if is_placeholder(value):
            found.append((path, value["$expr"]))
        elif isinstance(value, dict):
            pending += [(f"{path}.{key}" if path else str(key), item) for key, item in reversed(value.items())]
        elif isinstance(value, list):
            pending += [(f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value)))]
    return found


def _within(path: str) -> str:
    return path or "(arguments)"


def _too_many(found: list[Placeholder], allowed: int, what: str) -> Invalid:
    path = _within(found[allowed][0])
    message = f"`$expr` number {allowed + 1}: {what}"
    return Invalid(
        f"the arguments hold {len(found)} `$expr` values; {what}. Name a whole earlier result with `as` "
        "and refer to it, rather than to its parts one by one.",
        code=codes.TOO_MANY_EXPRESSIONS,
        errors=[{"path": path, "message": message}],
    )


def count_expressions(steps: list[dict[str, Any]]) -> list[list[Placeholder]]:
    """Each step's `$expr`s, refused before any step runs when a step or the pipeline holds
    more than its cap."""
    per_step, total = [], 0
    for index, step in enumerate(steps):
        found = placeholders(step.get("arguments") or {})
        left = MAX_EXPRESSIONS_PER_PIPELINE - total
        if len(found) > MAX_EXPRESSIONS_PER_STEP:
            cause = _too_many(found, MAX_EXPRESSIONS_PER_STEP, f"a step may hold at most {MAX_EXPRESSIONS_PER_STEP}")
        elif len(found) > left:
            cause = _too_many(
                found,
                left,
                f"a pipeline may hold at most {MAX_EXPRESSIONS_PER_PIPELINE}, and earlier steps hold {total}",
            )
        else:
            per_step.append(found)
            total += len(found)
            continue
        raise StepFailed(index, step["tool"], cause, [])
    return per_step


def check_expressions(found: list[Placeholder], named: dict[str, Any], where: str) -> None:
    """Each `$expr` a valid expression that names only results named so far: compiled, never
    evaluated."""
    for path, expression in found:
        at = f"{where}.{path}" if path else where
        try:
            transform.check(expression, at)
        except Invalid as err:  # name the argument, as validation does
            err.errors = [{"path": _within(path), "message": err.detail.removeprefix(f"{at}: ")}]
            raise
        unknown = transform.root_names(expression) - set(named)
        if unknown:  # a typo would otherwise pass null on
            so_far = ", ".join(sorted(named)) or "none yet"
            message = (
                f"$expr refers to {', '.join(sorted(unknown))}, which no earlier step named with `as` "
                f"(named so far: {so_far})"
            )
            raise Invalid(
                f"{at}: {message}", code=codes.UNKNOWN_RESULT_NAME, errors=[{"path": _within(path), "message": message}]
            )


def substitute(value: Any, named: dict[str, Any], budget: transform.Budget, where: str) -> Any:
    """Arguments with every {"$expr": "..."} replaced by its value over the named results."""
    if is_placeholder(value):
        return transform.apply(value["$expr"], named, budget, where=where)
    if isinstance(value, dict):
        return {key: substitute(item, named, budget, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, named, budget, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def run(ctx: CallContext, steps: list[dict[str, Any]], budget: transform.Budget) -> dict[str, Any]:
    if len(steps) > MAX_STEPS:
        raise Invalid(f"steps: {len(steps)} steps; a pipeline runs at most {MAX_STEPS}.", code=codes.VALIDATION_FAILED)
    expressions = count_expressions(steps)
    named: dict[str, Any] = {}
    done: list[dict[str, Any]] = []
    result: Any = None
    for index, step in enumerate(steps):
        tool, where = step["tool"], f"steps[{index}].arguments"
        try:
            op = domain_tools.find(tool)
            arguments = step.get("arguments") or {}
            domain_tools.check(ctx, op, arguments, stand_in=is_placeholder)
            check_expressions(expressions[index], named, where)
            if "transform" in step:
                transform.check(step["transform"], f"steps[{index}].transform")
            result = domain_tools.serve(
                ctx,
                op,
                lambda: substitute(arguments, named, budget, where),  # noqa: B023 - called at once, in this step
                evaluations=len(expressions[index]) + ("transform" in step),
            )
            if "transform" in step:
                result = transform.apply(step["transform"], result, budget, where=f"steps[{index}].transform")
            if "as" in step:
                named[step["as"]] = result
                transform.check_size(named, "Together, the results named so far")  # bounded like one answer
        except ApiError as err:
            raise StepFailed(index, tool, err, done) from None
        done.append({"index": index, "tool": tool, **({"as": step["as"]} if "as" in step else {})})
    return {"steps": done, "results": named, "last": result}
