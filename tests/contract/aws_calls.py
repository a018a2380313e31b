"""A static map of the AWS calls the deployed code makes, and of which Lambda function can
make each one (tests/contract/test_iam_policy.py compares it with infra/policies.py).

What is deployed: app.py, mcp_app.py and chalicelib/ without chalicelib/local and
chalicelib/ops (the bundles infra/package.py builds). Nothing here imports that code except the pynamodb model
classes (to learn their index attributes).

1. Units. Every module body, class body, function, method and lambda is a unit. A unit
   refers to other units by name (`fetch_many`, `store.fetch_many`, `self.save`), including
   names imported inside functions (the code imports lazily); nested functions and lambdas
   are units of their own, reached when something refers to them.
2. Reach. A handler function reaches the units it refers to, transitively. A method is
   reached when its class is and some reached unit uses an attribute of that name on an
   object of unknown type (`backend.search_tools(...)`: every reached class's
   `search_tools`). Code that runs at import (module bodies, and what they call) is the same
   for every function; what it registers (functions it passes on without calling them:
   operation handlers, hooks) is reached by whoever dispatches it: `DISPATCH` names, per
   receiving call, whether only the API function dispatches it or every function may.
   Blocks under `if __name__ == "__main__":` are operator entry points and never reached.
3. Calls. Receivers are typed by a few rules: `boto3.client("s3")` and functions that
   return one (files.s3()), their paginators, pynamodb model classes (`Item.get`), their
   indexes (`Item.gsi1`, `INDEXES[n]`), model instances (`Item(...)`, `Item.get(...)`, loop
   variables over queries, `-> Item` functions, and any receiver of `.save()`,
   `.delete()`, `.update(actions=...)`, `.refresh()` whose type is unknown), batches
   (`with Item.batch_write() as batch`), transactions (`with Transaction() as tx`, and
   parameters named `tx`), OpenSearch clients (functions returning `OpenSearch`, attributes
   of a class that stores a parameter annotated `OpenSearch`). Each call on a typed
   receiver maps to IAM actions on a resource kind through the tables below; a call the
   tables do not know is reported as unmapped (the test fails until someone maps it).
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = ("app", "mcp_app")  # the Lambda functions' entry modules
NOT_DEPLOYED = ("chalicelib/local/", "chalicelib/ops/")

# Modules that import every module of a package by name (importlib): the unit making the call
# imports them all (chalicelib/resources/__init__.py, whose body does it, is handled in the reach).
IMPORTS_EVERY_MODULE = {"chalicelib/console/app.py": "chalicelib.console.pages."}  # load_pages

# Resource kinds (test_iam_policy.py maps each to the policy's CloudFormation reference).
TABLE, INDEX = "table", "index"
BUCKET, OBJECTS = "bucket", "objects"
QUEUES = "queues"  # every queue of the stack: the status check reads their depths
DELIVERY_QUEUE = "delivery_queue"  # the webhook delivery queue (events/delivery_queue.py)
EXPORT_QUEUE = "export_queue"  # the export queue (exports/queue.py)
SANDBOX_QUEUE = "sandbox_queue"  # the sandbox jobs' queue (sandbox/jobs.py)
EXPORT_OBJECTS = "export_objects"  # an export's files under exports/ (exports/sink.py)
SEARCH, COUNT = "search:_search", "search:_count"
MAIL_IDENTITY = "mail_identity"  # the SES identity of the sender address (chalicelib/mail.py)
SEARCH_MODELS = "search_models"  # the search models' files in the artifact bucket (search/model_files.py)

# boto3: (service, method) -> (actions, resource kind). Argument-dependent variants below.
BOTO3: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("s3", "put_object"): (("s3:PutObject",), OBJECTS),
    ("s3", "get_object"): (("s3:GetObject",), OBJECTS),
    ("s3", "download_file"): (("s3:GetObject",), SEARCH_MODELS),  # only the search models are downloaded
    ("s3", "head_object"): (("s3:GetObject",), OBJECTS),
    ("s3", "delete_object"): (("s3:DeleteObject",), OBJECTS),
    ("s3", "list_objects_v2"): (("s3:ListBucket",), BUCKET),
    ("s3", "list_object_versions"): (("s3:ListBucketVersions",), BUCKET),
    # multipart uploads: IAM authorises the parts and the completion as PutObject
    ("s3", "create_multipart_upload"): (("s3:PutObject",), OBJECTS),
    ("s3", "upload_part"): (("s3:PutObject",), OBJECTS),
    ("s3", "complete_multipart_upload"): (("s3:PutObject",), OBJECTS),
    ("s3", "abort_multipart_upload"): (("s3:AbortMultipartUpload",), OBJECTS),
    ("sqs", "get_queue_attributes"): (("sqs:GetQueueAttributes",), QUEUES),
    ("sqs", "send_message"): (("sqs:SendMessage",), QUEUES),
    ("dynamodb", "describe_time_to_live"): (("dynamodb:DescribeTimeToLive",), TABLE),
    ("dynamodb", "update_time_to_live"): (("dynamodb:UpdateTimeToLive",), TABLE),
    ("sqs", "send_message_batch"): (("sqs:SendMessage",), QUEUES),
    ("sqs", "change_message_visibility"): (("sqs:ChangeMessageVisibility",), QUEUES),
    ("sqs", "change_message_visibility_batch"): (("sqs:ChangeMessageVisibility",), QUEUES),
    # SES v2's SendEmail is authorised as ses:SendEmail on the From identity (and, for recipients
    # verified in a sandboxed account, on theirs: the sandbox is lifted for production)
    ("sesv2", "send_email"): (("ses:SendEmail",), MAIL_IDENTITY),
}
# Modules whose SQS calls all go to one queue (the module reads its URL from one setting).
QUEUE_OF_MODULE = {
    "chalicelib/events/delivery_queue.py": DELIVERY_QUEUE,
    "chalicelib/exports/queue.py": EXPORT_QUEUE,
    "chalicelib/sandbox/jobs.py": SANDBOX_QUEUE,
}
# Modules whose S3 object calls all go to one prefix of the bucket.
OBJECTS_OF_MODULE = {"chalicelib/exports/sink.py": EXPORT_OBJECTS}
# A VersionId argument (or a ** expansion that may carry one) also needs the version action.
VERSIONED = {("s3", "get_object"): "s3:GetObjectVersion", ("s3", "delete_object"): "s3:DeleteObjectVersion"}
# Presigned URLs: whoever uses the URL acts with the signing role's permissions.
PRESIGNED: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("s3", "get_object"): (("s3:GetObject", "s3:GetObjectVersion"), OBJECTS),  # may name the registered version
    ("s3", "put_object"): (("s3:PutObject",), OBJECTS),
}
PRESIGNED_POST = {"s3": (("s3:PutObject",), OBJECTS)}
PAGINATED: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("s3", "list_objects_v2"): (("s3:ListBucket",), BUCKET),
    ("s3", "list_object_versions"): (("s3:ListBucketVersions",), BUCKET),
}
# Library names the typing rules above understand (prefix "x.*": any name under x). Anything
# else of these libraries in deployed code fails the test: teach the analysis first.
AWS_LIBRARIES = ("boto3", "botocore", "pynamodb", "opensearchpy", "s3transfer", "aiobotocore")
KNOWN_LIBRARY_NAMES = (
    "boto3",
    "boto3.client",
    "boto3.Session",  # typed; Session().get_credentials() signs OpenSearch requests
    "boto3.dynamodb.types.TypeDeserializer",  # stream images, no call
    "botocore.config.Config",
    "botocore.exceptions.*",
    "pynamodb.models.Model",
    "pynamodb.attributes.*",
    "pynamodb.exceptions.*",
    "pynamodb.indexes.*",
    "pynamodb.constants.*",  # attribute type names, no calls
    "pynamodb.expressions.*",
    "pynamodb.transactions.TransactWrite",  # only inside the Transaction wrapper (checked)
    "opensearchpy.OpenSearch",
    "opensearchpy.AWSV4SignerAuth",
    "opensearchpy.RequestsHttpConnection",
    "opensearchpy.exceptions.*",
)
CLIENT_HELPERS = {
    "get_paginator",
    "generate_presigned_url",
    "generate_presigned_post",
    "close",
    "meta",
    "exceptions",
    "can_paginate",
}

# pynamodb (6.x: no DescribeTable behind ordinary reads and writes).
MODEL_METHODS: dict[str, tuple[str, ...]] = {
    "get": ("dynamodb:GetItem",),
    "query": ("dynamodb:Query",),
    "scan": ("dynamodb:Scan",),
    "count": ("dynamodb:Query",),  # with a hash key; without one it is DescribeTable (see below)
    "batch_get": ("dynamodb:BatchGetItem",),
    "batch_write": ("dynamodb:BatchWriteItem",),
    "exists": ("dynamodb:DescribeTable",),
    "describe_table": ("dynamodb:DescribeTable",),
    "create_table": ("dynamodb:CreateTable", "dynamodb:DescribeTable"),
    "delete_table": ("dynamodb:DeleteTable",),
    "update_ttl": ("dynamodb:UpdateTimeToLive",),
}
MODEL_HELPERS = {"_get_connection", "_get_schema", "from_raw_data", "from_dynamodb_dict", "DoesNotExist"}
INDEX_METHODS = {"query": ("dynamodb:Query",), "count": ("dynamodb:Query",), "scan": ("dynamodb:Scan",)}
ITEM_METHODS = {
    "save": ("dynamodb:PutItem",),
    "update": ("dynamodb:UpdateItem",),
    "delete": ("dynamodb:DeleteItem",),
    "refresh": ("dynamodb:GetItem",),
}
# TransactWriteItems needs the action of each item it writes (DynamoDB developer guide,
# "Using IAM with DynamoDB transactions").
TX_METHODS = {
    "save": ("dynamodb:PutItem",),
    "update": ("dynamodb:UpdateItem",),
    "delete": ("dynamodb:DeleteItem",),
    "condition_check": ("dynamodb:ConditionCheckItem",),
}
# The entity index's calls (entity_search/opensearch_engine.py) are on its index, `entities:<path>`.
ENTITY_ENGINE = "chalicelib/entity_search/opensearch_engine.py"
# opensearch-py: (namespace, method) -> (action, resource kind); the HTTP verb each sends.
OPENSEARCH: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("", "search"): (("es:ESHttpPost",), SEARCH),  # POST <index>/_search
    ("", "count"): (("es:ESHttpPost",), COUNT),  # POST <index>/_count
    ("", "bulk"): (("es:ESHttpPost",), "search:_bulk"),
    ("", "delete_by_query"): (("es:ESHttpPost",), "search:_delete_by_query"),
    ("indices", "exists"): (("es:ESHttpHead",), "search:index"),
    ("indices", "create"): (("es:ESHttpPut",), "search:index"),
    ("search_pipeline", "put"): (("es:ESHttpPut",), "search:_search/pipeline"),
}

# Where functions that are passed on (not called) at import time end up, by the call that
# receives them: "api" (the registry of operations and routes: only the API function
# dispatches them), "root" (the Lambda handlers themselves), "field" (kept in an object under
# the keyword's name and called where reached code reads that attribute), "all" (any function
# may call them). A receiving call not named here fails the test: decide and add it.
DISPATCH = {
    "Operation": "api",  # registry.Operation(handler=...)
    "operation": "api",  # @registry.operation(...)
    "app.route": "api",
    "declare_show": "api",  # declare.py: extra fields of the show answer, and the
    "declare_list": "api",  # list's normalisers and the update's guard run inside the
    "declare_update": "api",  # operation handler these declare, as the restore's guard
    "declare_lifecycle": "api",  # (webhooks: the limit) runs inside restore's handler
    "declare_restore": "api",
    "MetaTool": "api",  # mcp/meta.py: the MCP meta-tools
    "page": "api",  # console/web.py: the console's pages, served by the API function under /console
    "EntityType": "field",  # entities.py: check/derive/unique, run where code reads `.check` etc. (store writes)
    "app.on_dynamodb_record": "root",
    "app.schedule": "root",
    "app.on_sqs_message": "root",
    "app.lambda_function": "root",
    "app.middleware": "all",
    "app.register_middleware": "all",
    "functools.wraps": "all",
    "dataclass": "all",
    "property": "all",
    "staticmethod": "all",
    "classmethod": "all",
    "lru_cache": "all",
    "functools.lru_cache": "all",
    "functools.cache": "all",
    "cache": "all",  # `from functools import cache`
    "field": "all",
    "evictions.on_key_changed": "all",  # store/evictions.py: auth's and account's cache evictions,
    "evictions.on_tenant_changed": "all",  # run by whichever function changes a key or tenant
    "logging.setLogRecordFactory": "all",  # log.py: the redacting record factory, run by every log call
    None: "all",  # stored or returned without a receiving call
}
# Of the "api" receivers: the ones that register an operation's handler, and the surfaces that serve
# them. A worker that runs some operations in its own process (the sandbox worker: dispatch.run of
# the seed's operations) follows the registrations of exactly those handlers and the other "api"
# receivers (the declare_* hooks that run inside operation handlers), never the surfaces.
OPERATION_REGISTRATIONS = {"Operation", "operation"}
SURFACES = {"app.route", "MetaTool", "page"}


@dataclass(frozen=True)
class Need:
    actions: tuple[str, ...]
    resource: str
    where: str  # file:line
    call: str  # the call's source text (shortened)


@dataclass
class Unit:
    id: str
    kind: str  # module | class | function | lambda
    module: str
    node: ast.AST
    parent: Unit | None
    cls: Unit | None = None  # the class of a method
    locals: dict[str, Any] = field(default_factory=dict)
    types: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    methods: dict[str, Unit] = field(default_factory=dict)  # of a class
    edges: list[tuple[str, str, str | None, str | None]] = field(
        default_factory=list
    )  # (unit id, call|ref, receiving call, its keyword)
    imports: set[str] = field(default_factory=set)  # modules imported (run at import)
    attrs: set[str] = field(default_factory=set)  # attributes used on objects of unknown type
    needs: list[Need] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    body: list[ast.AST] = field(default_factory=list)


def _is_main_block(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.test.comparators)
    )


def _text(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return None


def _is_update_action(node: ast.expr) -> bool:
    """`Item.data.set(...)`, `Item.version.add(1)`: an element of pynamodb's update actions."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("set", "remove", "add", "delete", "append", "prepend")
    )


def _const(args: list[ast.expr]) -> str | None:
    return args[0].value if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str) else None


class Program:
    def __init__(self) -> None:
        self.files: dict[str, Path] = {entry: ROOT / f"{entry}.py" for entry in ENTRIES}
        for path in sorted((ROOT / "chalicelib").rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(NOT_DEPLOYED):
                continue
            parts = rel.removesuffix(".py").split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            self.files[".".join(parts)] = path
        self.units: dict[str, Unit] = {}
        self.tables: dict[str, dict[str, Any]] = {}
        self.assigned: dict[tuple[str, str], ast.expr] = {}
        self.dynamic_imports: list[str] = []
        self.library_names: dict[str, str] = {}  # AWS library name used -> first file:line
        self._own_walks: dict[str, list[ast.AST]] = {}  # unit id -> its own nodes (_walk_own)
        for module, path in self.files.items():
            self._load(module, path)
        self.models = {
            u.id
            for u in self.units.values()
            if u.kind == "class" and any(self._is_model_base(b, u) for b in u.node.bases)  # type: ignore[attr-defined]
        }
        self.index_attrs = {m: self._index_attrs(m) for m in self.models}
        self.transactions = {u.id for u in self.units.values() if u.kind == "class" and self._wraps_transact_write(u)}
        self.getters: dict[str, tuple[Any, ...]] = {}
        for unit in self.units.values():
            if unit.kind == "function":
                getter = self._getter(unit)
                if getter:
                    self.getters[unit.id] = getter
        for unit in list(self.units.values()):
            self._infer_locals(unit)
        for unit in list(self.units.values()):
            self._scan(unit)

    # -- loading -------------------------------------------------------------------------
    def rel(self, module: str) -> str:
        return self.files[module].relative_to(ROOT).as_posix()

    def _load(self, module: str, path: Path) -> None:
        tree = ast.parse(path.read_text(), filename=str(path))
        unit = Unit(id=f"{module}:", kind="module", module=module, node=tree, parent=None)
        unit.body = [s for s in tree.body if not _is_main_block(s)]
        self.units[unit.id] = unit
        table: dict[str, Any] = {}
        self.tables[module] = table
        self._bind_block(unit, unit.body, table, module_level=True)

    def _bind_block(self, unit: Unit, body: list[Any], table: dict[str, Any], module_level: bool) -> None:
        """Names a block binds (defs, classes, imports, assignments), not descending into
        nested scopes; creates units for the defs, classes and lambdas found."""
        for stmt in body:
            for node in self._own_nodes(stmt):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    table[node.name] = ("unit", self._make_unit(node, unit).id)
                elif isinstance(node, ast.Lambda):
                    self._make_unit(node, unit)
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.asname:
                            table[alias.asname] = self._module_binding(alias.name)
                        else:
                            top = alias.name.split(".")[0]
                            table[top] = self._module_binding(top)
                elif isinstance(node, ast.ImportFrom):
                    assert node.level == 0, f"relative import in {unit.module}"
                    for alias in node.names:
                        table[alias.asname or alias.name] = ("symbol", node.module, alias.name)
                elif isinstance(
                    node,
                    ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr | ast.For | ast.With | ast.comprehension,
                ):
                    for target in self._targets(node):
                        if module_level:
                            table.setdefault(target.id, ("var", unit.module, target.id))
                            value = getattr(node, "value", None)
                            if value is not None and isinstance(node, ast.Assign | ast.AnnAssign):
                                self.assigned[(unit.module, target.id)] = value
                        else:
                            table.setdefault(target.id, ("local",))

    @staticmethod
    def _targets(node: ast.AST) -> Iterator[ast.Name]:
        if isinstance(node, ast.Assign):
            roots: list[ast.AST] = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr | ast.For | ast.comprehension):
            roots = [node.target]
        elif isinstance(node, ast.With):
            roots = [item.optional_vars for item in node.items if item.optional_vars is not None]
        else:
            roots = []
        for root in roots:
            for sub in ast.walk(root):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    yield sub

    def _own_nodes(self, root: ast.AST) -> Iterator[ast.AST]:
        """`root` and what it holds, not entering nested functions, lambdas or classes
        (yielded themselves, with their decorators, defaults and bases, which the enclosing
        scope evaluates)."""
        stack = [root]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                stack.extend(node.decorator_list)
                stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
                continue
            if isinstance(node, ast.Lambda):
                stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
                continue
            if isinstance(node, ast.ClassDef):
                stack.extend(node.decorator_list)
                stack.extend(node.bases)
                stack.extend(k.value for k in node.keywords)
                continue
            if _is_main_block(node):
                continue
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    def _make_unit(self, node: ast.AST, parent: Unit) -> Unit:
        if isinstance(node, ast.Lambda):
            kind, name = "lambda", f"<lambda:{node.lineno}:{node.col_offset}>"
        else:
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            name = node.name  # type: ignore[attr-defined]
        qual = parent.id.split(":", 1)[1]
        unit = Unit(
            id=f"{parent.module}:{qual + '.' if qual else ''}{name}",
            kind=kind,
            module=parent.module,
            node=node,
            parent=parent,
        )
        if parent.kind == "class" and kind == "function":
            unit.cls = parent
            parent.methods[name] = unit
        self.units[unit.id] = unit
        if isinstance(node, ast.ClassDef):
            unit.body = list(node.body)
            table: dict[str, Any] = {}
            self._bind_block(unit, unit.body, table, module_level=False)  # methods become units
            return unit
        args = node.args  # type: ignore[attr-defined]
        for arg in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
            unit.locals[arg.arg] = ("param", arg.annotation)
        unit.body = list(node.body) if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
        self._bind_block(unit, unit.body, unit.locals, module_level=False)
        for name_, binding in list(unit.locals.items()):
            if binding == ("local",) and name_ in {a.arg for a in args.args + args.kwonlyargs + args.posonlyargs}:
                unit.locals[name_] = ("param", None)
        return unit

    def _module_binding(self, name: str) -> tuple[str, str]:
        return ("module", name) if name in self.files else ("external", name)

    # -- names ---------------------------------------------------------------------------
    def lookup(self, unit: Unit, name: str) -> Any:
        scope: Unit | None = unit
        while scope is not None:
            if scope.kind in ("function", "lambda") and name in scope.locals:
                return self._follow(scope.locals[name])
            if scope.kind == "module":
                return self._follow(self.tables[scope.module].get(name, ("builtin", name)))
            scope = scope.parent
        return None

    def _follow(self, binding: Any, depth: int = 0) -> Any:
        if binding and binding[0] == "symbol" and depth < 20:
            _, module, name = binding
            if module not in self.files:
                return ("external", f"{module}.{name}")
            if f"{module}.{name}" in self.files:
                return ("module", f"{module}.{name}")
            return self._follow(self.tables[module].get(name, ("var", module, name)), depth + 1)
        return binding

    def resolve(self, unit: Unit, node: ast.AST) -> Any:
        """What a name or attribute chain denotes: ("module", m), ("unit", id),
        ("external", dotted), ("var", m, name), ("param", annotation), ("local",) or None."""
        if isinstance(node, ast.Name):
            return self.lookup(unit, node.id)
        if isinstance(node, ast.Attribute):
            if (
                isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
                and unit.parent
                and self._class_of(unit)
            ):
                cls = self._class_of(unit)
                method = self._method(cls, node.attr) if cls else None
                return ("unit", method.id) if method else ("selfattr", cls.id if cls else "", node.attr)
            base = self.resolve(unit, node.value)
            if not base:
                return None
            if base[0] == "module":
                name = f"{base[1]}.{node.attr}"
                if name in self.files:
                    return ("module", name)
                return self._follow(self.tables[base[1]].get(node.attr, ("var", base[1], node.attr)))
            if base[0] == "external":
                return ("external", f"{base[1]}.{node.attr}")
            if base[0] == "unit" and self.units[base[1]].kind == "class":
                method = self._method(self.units[base[1]], node.attr)
                return ("unit", method.id) if method else ("classattr", base[1], node.attr)
        return None

    def _class_of(self, unit: Unit) -> Unit | None:
        scope: Unit | None = unit
        while scope is not None:
            if scope.cls is not None:
                return scope.cls
            scope = scope.parent
        return None

    def _method(self, cls: Unit, name: str) -> Unit | None:
        if name in cls.methods:
            return cls.methods[name]
        for base in cls.node.bases:  # type: ignore[attr-defined]
            resolved = self.resolve(cls.parent or cls, base)
            if resolved and resolved[0] == "unit" and self.units[resolved[1]].kind == "class":
                found = self._method(self.units[resolved[1]], name)
                if found:
                    return found
        return None

    # -- types ---------------------------------------------------------------------------
    def _is_model_base(self, base: ast.expr, unit: Unit) -> bool:
        resolved = self.resolve(unit.parent or unit, base)
        return bool(resolved and resolved[0] == "external" and resolved[1] == "pynamodb.models.Model")

    def _index_attrs(self, model: str) -> set[str]:
        from pynamodb.indexes import Index

        module, name = model.split(":")
        cls = getattr(importlib.import_module(module), name)
        return {attr for attr, value in vars(cls).items() if isinstance(value, Index)}

    def _wraps_transact_write(self, cls: Unit) -> bool:
        init = cls.methods.get("__init__")
        if init is None:
            return False
        for node in ast.walk(init.node):
            if isinstance(node, ast.Call):
                resolved = self.resolve(init, node.func)
                if resolved and resolved[0] == "external" and resolved[1] == "pynamodb.transactions.TransactWrite":
                    return True
        return False

    def _getter(self, unit: Unit) -> tuple[Any, ...] | None:
        """A function answering a client: one that makes `boto3.client("<service>")` and
        returns a name, a subscript (its cache) or a call, or one annotated to return an
        OpenSearch client."""
        returns = getattr(unit.node, "returns", None)
        if returns is not None and isinstance(returns, ast.Constant | ast.Name | ast.Attribute):
            text = returns.value if isinstance(returns, ast.Constant) else _dotted(returns)
            if isinstance(text, str) and text.split(".")[-1] == "OpenSearch":
                return ("es", "")
        made = None
        has_return = False
        for node in self._walk_own(unit):
            if isinstance(node, ast.Call):
                resolved = self.resolve(unit, node.func)
                if resolved and resolved[0] == "external" and resolved[1] == "boto3.client":
                    made = _const(node.args)
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Name | ast.Subscript | ast.Call):
                has_return = True  # the client, or the cache entry holding it (not a result built from it)
        return ("client", made) if made and has_return else None

    def _walk_own(self, unit: Unit) -> list[ast.AST]:
        """The nodes of a unit's own body, listed once: the type inference walks every method of
        a class for each attribute it looks up (three quarters of the analysis's 8 s, walked anew)."""
        walked = self._own_walks.get(unit.id)
        if walked is None:
            walked = self._own_walks[unit.id] = [node for stmt in unit.body for node in self._own_nodes(stmt)]
        return walked

    def _annotation_type(self, unit: Unit, annotation: Any) -> tuple[Any, ...] | None:
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        for node in ast.walk(annotation):
            if isinstance(node, ast.Name | ast.Attribute):
                resolved = (
                    self.resolve(unit.parent or unit, node) if unit.kind != "module" else self.resolve(unit, node)
                )
                if resolved and resolved[0] == "unit":
                    if resolved[1] in self.models:
                        return ("item",)
                    if resolved[1] in self.transactions:
                        return ("tx",)
                if resolved and resolved[0] == "external" and resolved[1].endswith(".OpenSearch"):
                    return ("es", "")
        return None

    def _infer_locals(self, unit: Unit) -> None:
        if unit.kind in ("function", "lambda"):
            for name, binding in unit.locals.items():
                if binding[0] == "param":
                    found = self._annotation_type(unit, binding[1]) or (("tx",) if name == "tx" else None)
                    if found:
                        unit.types[name] = found
        for _ in range(2):
            for node in self._walk_own(unit):
                found = None
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                    found = self.typeof(unit, node.value)
                elif isinstance(node, ast.For | ast.comprehension):
                    source = self.typeof(unit, node.iter)
                    found = ("item",) if source == ("items",) else None
                elif isinstance(node, ast.With):
                    for item in node.items:
                        if isinstance(item.optional_vars, ast.Name):
                            typed = self.typeof(unit, item.context_expr)
                            if typed:
                                unit.types[item.optional_vars.id] = typed
                if found:
                    for target in self._targets(node):
                        unit.types[target.id] = found

    def typeof(self, unit: Unit, node: ast.AST, depth: int = 0) -> tuple[Any, ...] | None:
        if depth > 12:
            return None
        if isinstance(node, ast.Name):
            scope: Unit | None = unit
            while scope is not None and scope.kind != "module":
                if node.id in scope.types:
                    return scope.types[node.id]
                if node.id in scope.locals:
                    break
                scope = scope.parent
            return self._binding_type(self.lookup(unit, node.id), depth)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                cls = self._class_of(unit)
                if cls:
                    return self._self_attr_type(cls, node.attr, depth)
            base = self.typeof(unit, node.value, depth + 1)
            if base and base[0] == "model" and node.attr in self.index_attrs[base[1]]:
                return ("index",)
            if base == ("tableconn",) and node.attr == "connection":
                return ("conn",)
            if base == ("conn",) and node.attr == "client":
                return ("client", "dynamodb")
            if base and base[0] == "es" and base[1] == "":
                return ("es", node.attr)
            return self._binding_type(self.resolve(unit, node), depth)
        if isinstance(node, ast.Subscript):
            return ("index",) if self.typeof(unit, node.value, depth + 1) == ("index_map",) else None
        if isinstance(node, ast.Dict):
            values = [self.typeof(unit, v, depth + 1) for v in node.values]
            return ("index_map",) if values and all(v == ("index",) for v in values) else None
        if isinstance(node, ast.Call):
            func = node.func
            resolved = self.resolve(unit, func)
            if resolved and resolved[0] == "external" and resolved[1] == "boto3.client":
                return ("client", _const(node.args))
            if resolved and resolved[0] == "external" and resolved[1] in ("boto3.Session", "boto3.session.Session"):
                return ("session",)
            if resolved and resolved[0] == "external" and resolved[1] == "pynamodb.transactions.TransactWrite":
                return ("txw",)
            if resolved and resolved[0] == "unit":
                target = self.units[resolved[1]]
                if target.id in self.getters:
                    return self.getters[target.id]
                if target.id in self.models:
                    return ("item",)
                if target.id in self.transactions:
                    return ("tx",)
                returns = getattr(target.node, "returns", None)
                if target.kind == "function" and returns is not None:
                    return self._annotation_type(target, returns)
            if isinstance(func, ast.Attribute):
                base = self.typeof(unit, func.value, depth + 1)
                if base and base[0] == "model":
                    return {
                        "get": ("item",),
                        "query": ("items",),
                        "scan": ("items",),
                        "batch_get": ("items",),
                        "batch_write": ("batch",),
                    }.get(func.attr, ("tableconn",) if func.attr == "_get_connection" else None)
                if base == ("index",) and func.attr in ("query", "scan"):
                    return ("items",)
                if base and base[0] == "client" and func.attr == "get_paginator":
                    return ("paginator", base[1], _const(node.args))
                if base == ("session",) and func.attr == "client":
                    return ("client", _const(node.args))
        return None

    def _binding_type(self, binding: Any, depth: int) -> tuple[Any, ...] | None:
        if not binding:
            return None
        if binding[0] == "unit" and binding[1] in self.models:
            return ("model", binding[1])
        if binding[0] == "var":
            value = self.assigned.get((binding[1], binding[2]))
            if value is not None:
                return self.typeof(self.units[f"{binding[1]}:"], value, depth + 1)
        return None

    def _self_attr_type(self, cls: Unit, attr: str, depth: int) -> tuple[Any, ...] | None:
        for method in cls.methods.values():
            for node in self._walk_own(method):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if (
                            isinstance(target, ast.Attribute)
                            and isinstance(target.value, ast.Name)
                            and target.value.id == "self"
                            and target.attr == attr
                        ):
                            found = self.typeof(method, node.value, depth + 1)
                            if found:
                                return found
        return None

    # -- references and calls ---------------------------------------------------------------
    def _scan(self, unit: Unit) -> None:
        if unit.kind == "lambda":
            nodes = list(self._own_nodes(unit.node.body))  # type: ignore[attr-defined]
        elif unit.kind == "class":
            nodes = [
                n
                for stmt in unit.body
                if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
                for n in self._own_nodes(stmt)
            ]
            nodes += [
                n
                for stmt in unit.body
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
                for n in stmt.decorator_list
            ]
        else:
            nodes = self._walk_own(unit)
        receivers: dict[int, tuple[str | None, str | None]] = {}
        callee_of: set[int] = set()
        for node in nodes:
            if isinstance(node, ast.Call):
                callee_of.add(id(node.func))
                name = _dotted(node.func)
                for keyword, arg in [*((None, a) for a in node.args), *((k.arg, k.value) for k in node.keywords)]:
                    for sub in ast.walk(arg):
                        receivers[id(sub)] = (name, keyword)  # calls come before the calls they hold: the nearest wins
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                target = self.units[self._child_id(unit, node.name)]
                for decorator in node.decorator_list:
                    unit.edges.append((target.id, "ref", _dotted(decorator), None))
            if isinstance(node, ast.Lambda):
                unit.edges.append(
                    (
                        self._child_id(unit, f"<lambda:{node.lineno}:{node.col_offset}>"),
                        "ref",
                        *receivers.get(id(node), (None, None)),
                    )
                )
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if isinstance(node, ast.ImportFrom):
                    names += [f"{node.module}.{a.name}" for a in node.names]
                for name in names:
                    parts = name.split(".")
                    unit.imports.update(
                        ".".join(parts[: i + 1]) for i in range(len(parts)) if ".".join(parts[: i + 1]) in self.files
                    )
        for node in nodes:
            if isinstance(node, ast.Call):
                resolved = self.resolve(unit, node.func)
                if (
                    resolved
                    and resolved[0] == "external"
                    and resolved[1] in ("importlib.import_module", "builtins.__import__")
                ):
                    package = IMPORTS_EVERY_MODULE.get(self.rel(unit.module))
                    if package:
                        unit.imports.update(m for m in self.files if m.startswith(package))
                    else:
                        self.dynamic_imports.append(f"{self.rel(unit.module)}:{node.lineno}")
                wrapper = self._class_of(unit)
                if resolved == ("external", "pynamodb.transactions.TransactWrite") and not (
                    wrapper and wrapper.id in self.transactions
                ):
                    unit.unmapped.append(
                        f"{self.rel(unit.module)}:{node.lineno}: "
                        f"TransactWrite outside the Transaction wrapper ({_text(node)})"
                    )
                self._classify(unit, node)
            if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
                resolved = self.resolve(unit, node)
                if resolved and resolved[0] == "external" and resolved[1].split(".")[0] in AWS_LIBRARIES:
                    self.library_names.setdefault(resolved[1], f"{self.rel(unit.module)}:{node.lineno}")
                if resolved and resolved[0] == "unit":
                    kind = "call" if id(node) in callee_of else "ref"
                    unit.edges.append((resolved[1], kind, *receivers.get(id(node), (None, None))))
                elif isinstance(node, ast.Attribute) and not resolved:
                    unit.attrs.add(node.attr)
                elif isinstance(node, ast.Attribute) and resolved and resolved[0] in ("selfattr", "classattr"):
                    unit.attrs.add(node.attr)

    def _child_id(self, unit: Unit, name: str) -> str:
        qual = unit.id.split(":", 1)[1]
        return f"{unit.module}:{qual + '.' if qual else ''}{name}"

    def _classify(self, unit: Unit, call: ast.Call) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        where = f"{self.rel(unit.module)}:{call.lineno}"
        method = func.attr
        receiver = self.typeof(unit, func.value)
        text = _text(call)

        def need(actions: tuple[str, ...], resource: str) -> None:
            unit.needs.append(Need(actions, resource, where, text))

        def unmapped(what: str) -> None:
            unit.unmapped.append(f"{where}: {what} ({text})")

        keywords = {k.arg for k in call.keywords}
        if receiver and receiver[0] == "client":
            service = receiver[1]
            if method == "generate_presigned_url":
                found = PRESIGNED.get((service, _const(call.args) or ""))
                need(*found) if found else unmapped(f"presigned {service}.{_const(call.args)}")
            elif method == "generate_presigned_post":
                need(*PRESIGNED_POST[service]) if service in PRESIGNED_POST else unmapped(
                    f"presigned POST on {service}"
                )
            elif method in CLIENT_HELPERS:
                return
            elif (service, method) in BOTO3:
                actions, resource = BOTO3[(service, method)]
                if (service, method) in VERSIONED and ("VersionId" in keywords or None in keywords):
                    actions = (*actions, VERSIONED[(service, method)])
                if service == "sqs":
                    resource = QUEUE_OF_MODULE.get(self.rel(unit.module), resource)
                if service == "s3" and resource == OBJECTS:
                    resource = OBJECTS_OF_MODULE.get(self.rel(unit.module), resource)
                need(actions, resource)
            else:
                unmapped(f"boto3 {service}.{method}")
        elif receiver and receiver[0] == "paginator":
            if method == "paginate":
                found = PAGINATED.get((receiver[1], receiver[2]))
                need(*found) if found else unmapped(f"paginator {receiver[1]}.{receiver[2]}")
        elif receiver and receiver[0] == "model":
            if method == "count" and not call.args:
                need(("dynamodb:DescribeTable",), TABLE)
            elif method in MODEL_METHODS:
                need(MODEL_METHODS[method], TABLE)
            elif method not in MODEL_HELPERS:
                unmapped(f"pynamodb {method}")
        elif receiver == ("index",):
            need(INDEX_METHODS[method], INDEX) if method in INDEX_METHODS else unmapped(f"index {method}")
        elif receiver == ("tx",):
            if method in TX_METHODS:
                need(TX_METHODS[method], TABLE)
        elif receiver in (("batch",), ("txw",), ("tableconn",), ("conn",)):
            # batch.save/delete: the BatchWriteItem; the Transaction wrapper's internals: its callers'
            # tx.<method>
            return
        elif receiver and receiver[0] == "es":
            found = OPENSEARCH.get((receiver[1], method))
            if found and self.rel(unit.module) == ENTITY_ENGINE:  # the entity index, not the tools'
                found = (found[0], found[1].replace("search:", "entities:", 1))
            need(*found) if found else unmapped(f"opensearch {receiver[1]}.{method}")
        elif receiver == ("item",):
            if method in ITEM_METHODS:
                need(ITEM_METHODS[method], TABLE)
        elif receiver is None and not self._is_named(unit, func.value):
            # an object of unknown type: a model instance if the call looks like pynamodb's
            updates = "actions" in keywords or any(
                isinstance(a, ast.List) and all(_is_update_action(e) for e in a.elts) and a.elts for a in call.args
            )
            if (
                method in ("save", "refresh")
                or (method == "update" and updates)
                or (method == "delete" and not call.args)
            ):
                need(ITEM_METHODS[method], TABLE)

    def _is_named(self, unit: Unit, node: ast.AST) -> bool:
        """The receiver is a module, a class or function of the code, or a library name
        (`files.delete(...)`, `os.remove`): not a model instance."""
        resolved = self.resolve(unit, node)
        return bool(resolved and resolved[0] in ("module", "unit", "external", "builtin"))

    # -- reach -------------------------------------------------------------------------------
    def import_time(self, entry: str = "app") -> set[str]:
        """Units that run when an entry point (app.py, mcp_app.py) is imported: module bodies
        (the entry's and what it imports, also from functions it calls) and the calls they make."""
        seen: set[str] = set()
        stack = [f"{entry}:"]
        while stack:
            uid = stack.pop()
            if uid in seen:
                continue
            seen.add(uid)
            unit = self.units[uid]
            stack += [f"{m}:" for m in unit.imports]
            if unit.module == "chalicelib.resources" and unit.kind == "module":  # imports every module in the package
                stack += [f"{m}:" for m in self.files if m.startswith("chalicelib.resources.")]
            stack += [target for target, kind, _, _ in unit.edges if kind == "call"]
            if unit.kind in ("module", "class"):  # class bodies run where they are defined
                stack += [u.id for u in self.units.values() if u.parent is unit and u.kind == "class"]
        return seen

    def registrations(self) -> list[tuple[str, str | None, str]]:
        """Functions that code running at import (module and class bodies, and what app.py's
        import calls) passes on without calling: (unit, receiving call, file)."""
        sources = set().union(*(self.import_time(entry) for entry in ENTRIES)) | {
            u.id for u in self.units.values() if u.kind in ("module", "class")
        }
        found = []
        for uid in sorted(sources):
            unit = self.units[uid]
            for target, kind, receiver, _ in unit.edges:
                if kind == "ref" and self.units[target].kind in ("function", "lambda"):
                    found.append((target, receiver, self.rel(unit.module)))
        return found

    def reach(
        self,
        roots: list[str],
        *,
        api: bool = False,
        skip: frozenset[tuple[str, str]] = frozenset(),
        operations: frozenset[str] = frozenset(),
    ) -> set[str]:
        """Units reachable from `roots`: what they refer to, the bodies of the modules they
        import (run on first import: lazily imported modules register their things then),
        and the methods of reached classes whose names reached code uses. Passing a function
        to a receiver of DISPATCH counts only where that receiver dispatches it (never for
        the handlers' own decorators; for the registry of operations only from the API).
        `skip`: (caller, callee) edges the Lambda function never takes. `operations`: the handler
        units of the operations a worker runs in its own process (OPERATION_REGISTRATIONS)."""
        follow = {None, "all", "api"} if api else {None, "all"}
        seen: set[str] = set()
        attrs: set[str] = set()
        classes: set[str] = set()
        stored: list[tuple[str, str]] = []  # (field, function) kept in an object, run where the field is read
        stack = list(roots)
        while True:
            while stack:
                uid = stack.pop()
                if uid in seen:
                    continue
                seen.add(uid)
                unit = self.units[uid]
                attrs |= unit.attrs
                if unit.kind == "class":
                    classes.add(uid)
                    stack += [m.id for name, m in unit.methods.items() if name.startswith("__") and name.endswith("__")]
                if unit.kind == "function" and unit.cls is not None:
                    stack.append(unit.cls.id)
                if unit.kind == "module":
                    stack += [u.id for u in self.units.values() if u.parent is unit and u.kind == "class"]
                    if unit.module == "chalicelib.resources":  # its body imports every module of the package
                        stack += [f"{m}:" for m in self.files if m.startswith("chalicelib.resources.")]
                stack += [f"{m}:" for m in unit.imports]
                for target, _, receiver, keyword in unit.edges:
                    how = DISPATCH.get(receiver)
                    if (uid, target) in skip:
                        continue
                    if how == "field" and keyword is not None:
                        stored.append((keyword, target))
                    elif how in follow or how == "field":
                        stack.append(target)
                    elif how == "api" and operations and receiver not in SURFACES:
                        if receiver not in OPERATION_REGISTRATIONS or target in operations:
                            stack.append(target)
            stack = [
                m.id for c in classes for name, m in self.units[c].methods.items() if name in attrs and m.id not in seen
            ]
            stack += [target for keyword, target in stored if keyword in attrs and target not in seen]
            if not stack:
                return seen

    def function_reach(
        self,
        entry: str,
        handler: str | None,
        *,
        skip: frozenset[tuple[str, str]] = frozenset(),
        operations: frozenset[str] = frozenset(),
    ) -> set[str]:
        """Units a Lambda function may run: its entry point's import (app.py's is the same for
        every function of app.py), then its handler (`app:on_upload`); a function serving
        HTTP (handler None: the REST and the MCP function) also runs everything registered as
        a route or operation; a worker that runs operations in its own process, the handlers
        among `operations` (their units)."""
        if handler is None:
            return self.reach([f"{entry}:"], api=True, skip=skip)
        return self.reach([f"{entry}:", handler], skip=skip, operations=operations)

    def needs(self, units: set[str]) -> list[Need]:
        return [need for uid in sorted(units) for need in self.units[uid].needs]

    def all_needs(self) -> list[Need]:
        return self.needs(set(self.units))

    def unmapped(self) -> list[str]:
        found = [text for unit in self.units.values() for text in unit.unmapped]
        for name, where in sorted(self.library_names.items()):
            known = any(
                name == k or (k.endswith(".*") and name.startswith(k[:-1])) or k.startswith(name + ".")
                for k in KNOWN_LIBRARY_NAMES
            )
            if not known:
                found.append(f"{where}: {name} (not in KNOWN_LIBRARY_NAMES: its calls would go unseen)")
        return found
