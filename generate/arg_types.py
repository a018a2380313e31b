"""chalicelib/arg_types.py (`make generate`): a TypedDict of every operation's arguments generated
from its JSON Schema in the registry, so that mypy checks what a handler reads
(`args["contact"]["lastName"]`) against what the operation declares. The file is committed;
`make check` and tests/contract/test_arg_types.py hold it to the registry."""

from __future__ import annotations

import json
import keyword
import re
from pathlib import Path
from typing import Any

from generate import stale_files, write_files

TARGET = Path(__file__).resolve().parents[1] / "chalicelib" / "arg_types.py"

HEADER = '''"""The arguments of every operation as TypedDicts, generated from the registry's JSON Schemas
by `make generate` (generate/arg_types.py; do not edit: `make check` says when it is due). A
handler annotates its arguments with its operation's type: `args: ContactsMergeArgs`."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict
'''


def class_name(operation: str) -> str:
    """'accounting.bankaccountinfos.create.contact' -> 'AccountingBankaccountinfosCreateContactArgs'."""
    words = re.split(r"[._]", operation)
    return "".join(word[:1].upper() + word[1:] for word in words) + "Args"


class _Writer:
    def __init__(self) -> None:
        self.classes: list[str] = []

    def type_of(self, schema: dict[str, Any], name: str) -> str:
        """The Python type of a schema; nested objects with properties become their own classes."""
        kind = schema.get("type")
        if "enum" in schema:
            shown = "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
        elif kind == "object" and schema.get("properties"):
            shown = self.typed_dict(name, schema)
        elif kind == "object":
            shown = "dict[str, Any]"
        elif kind == "array":
            shown = f"list[{self.type_of(schema.get('items') or {}, name + 'Item')}]"
        else:
            shown = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}.get(str(kind), "Any")
        return f"{shown} | None" if schema.get("nullable") and shown != "Any" else shown

    def typed_dict(self, name: str, schema: dict[str, Any]) -> str:
        required = set(schema.get("required") or [])
        fields = []
        for field, sub in (schema.get("properties") or {}).items():
            typed = self.type_of(sub, name + re.sub(r"\W", "", field[:1].upper() + field[1:]))
            fields.append((field, typed if field in required else f"NotRequired[{typed}]"))
        if all(field.isidentifier() and not keyword.iskeyword(field) for field, _ in fields):
            body = "\n".join(f"    {field}: {typed}" for field, typed in fields) or "    pass"
            self.classes.append(f"class {name}(TypedDict):\n{body}\n")
        else:  # a key such as `from`: the functional syntax takes any string
            items = "".join(f"\n        {json.dumps(field)}: {typed}," for field, typed in fields)
            self.classes.append(f"{name} = TypedDict(\n    {json.dumps(name)},\n    {{{items}\n    }},\n)\n")
        return name


def render() -> str:
    import chalicelib.resources  # noqa: F401 - registers every operation
    from chalicelib.registry import REGISTRY

    writer = _Writer()
    for name in sorted(REGISTRY):
        args = REGISTRY[name].args
        if args.get("properties"):
            writer.typed_dict(class_name(name), args)
        else:
            writer.classes.append(f"class {class_name(name)}(TypedDict):\n    pass\n")
    return HEADER + "\n\n" + "\n\n".join(writer.classes)


def stale() -> list[Path]:
    return stale_files({TARGET: render()})


def write() -> list[Path]:
    return write_files({TARGET: render()})
