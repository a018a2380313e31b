"""pmctl: the operator's command line. Onboards vendor integrations (they cannot sign up),
issues their keys, and reads tenants.

It talks to the table directly, with the service's own environment: PM_TABLE_NAME,
AWS_REGION, AWS credentials and AWS_ENDPOINT_URL, PM_KEY_ENVIRONMENT (live or test keys).
`pmctl --local` instead reads `.local/stack.json` (PM_STATE_DIR), which a running
`make serve` writes, and points itself at that embedded stack.

The store modules are imported when a command runs, so `--help` needs nothing but click.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import click

from chalicelib import clock, config
from chalicelib.errors import ApiError

ROOT = Path(__file__).resolve().parents[2]
STACK_FILE = "stack.json"
KEY_CACHE_NOTE = "warm service instances may accept a key for up to 10 s longer (their key cache)"

F = TypeVar("F", bound=Callable[..., Any])


def state_dir() -> Path:
    """The folder of `make serve` (its stack.json and outbox): $PM_STATE_DIR, else .local; a relative
    one is taken from the repository's root, where `make serve` runs, wherever pmctl is started."""
    return ROOT / config.state_dir(".local")


# --- connection -----------------------------------------------------------------------


def use_local_stack() -> dict[str, Any]:
    """Point this process at the stack of a running `make serve` (its .local/stack.json)."""
    path = state_dir() / STACK_FILE
    try:
        stack = json.loads(path.read_text())
    except FileNotFoundError:
        raise click.ClickException(
            f"No running `make serve` found ({path} is missing). Start it with `make serve`, then retry."
        ) from None
    except ValueError:
        raise click.ClickException(f"{path} is not readable JSON; restart `make serve`.") from None
    endpoint = urlparse(stack["endpoint"])
    try:
        socket.create_connection((endpoint.hostname or "127.0.0.1", endpoint.port or 80), timeout=2).close()
    except OSError:
        raise click.ClickException(
            f"Nothing answers at {stack['endpoint']} ({path}): is `make serve` still running?"
        ) from None
    from chalicelib.local.stack import attach  # cold start: the local stack module loads for --local only

    attach(stack)
    return dict(stack)


def _ready() -> None:
    """Before the first store access: apply --local (once)."""
    ctx = click.get_current_context()
    root = ctx.find_root()
    root.ensure_object(dict)
    if root.params.get("local") and not root.obj.get("connected"):
        use_local_stack()
        root.obj["connected"] = True


def store_command(func: F) -> F:
    """A command that reads or writes the table."""

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        _ready()
        return func(*args, **kwargs)

    return run  # type: ignore[return-value]


class _Root(click.Group):
    """Turns the service's typed errors and store failures into one clear line and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ApiError as err:
            raise click.ClickException(printable(f"{err.detail} [{err.code}]")) from err
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as err:
            if type(err).__module__.split(".")[0] in ("pynamodb", "botocore", "boto3"):
                cause = getattr(err, "cause", None) or err
                raise click.ClickException(f"The store refused or is unreachable: {cause}") from err
            raise


# --- output ---------------------------------------------------------------------------

JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of text.")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Tenant data as inert text: an ESC sequence in a company name would otherwise recolour,
    retitle or rewrite the operator's terminal. Control characters are shown escaped (\\x1b);
    none of the lines printed here holds one of its own."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def _echo(text: str, err: bool = False) -> None:
    click.echo(printable(text), err=err)


def _json(value: Any) -> None:
    """JSON escapes C0 controls itself; DEL and C1 controls (only ever inside strings) get
    JSON's own \\u escape, so the output stays valid JSON and inert in a terminal."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    click.echo(re.sub(r"[\x7f-\x9f]", lambda found: f"\\u{ord(found.group()):04x}", text))


def _status(disabled: bool) -> str:
    return "disabled" if disabled else "enabled"


def _integration_line(i: dict[str, Any]) -> str:
    return (
        f"{i['id']}  {_status(i['disabled']):8}  {i['name']}  "
        f"(contact: {i['contact']}; allowed scopes: {', '.join(i['allowedScopes'])})"
    )


def _tenant_line(t: dict[str, Any]) -> str:
    trial = f", trial ends {t['trialEndsAt']}" if t.get("trialEndsAt") else ""
    return f"{t['id']}  {t['companyName']}  <{t['email']}>  plan {t.get('plan')}{trial}"


# --- root -----------------------------------------------------------------------------


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--local",
    is_flag=True,
    help="Use the stack of a running `make serve` (reads .local/stack.json, or $PM_STATE_DIR/stack.json).",
)
@click.pass_context
def cli(ctx: click.Context, local: bool) -> None:
    """Operator tool of the property-management platform: onboard vendor integrations,
    issue their API keys, read tenants.

    Without --local it uses the service's environment: PM_TABLE_NAME, AWS_REGION, AWS
    credentials, AWS_ENDPOINT_URL and PM_KEY_ENVIRONMENT (`live` for production keys).

    What pmctl changes in a tenant (plan, throttle, connecting or disabling an integration,
    issuing or disabling its keys) is an audit record in that tenant's trail (audit.list),
    by agent "operator (pmctl)", channel "operator".

    \b
    Onboarding a vendor:
      pmctl integrations create --name "Acme Billing" --contact ops@acme.example --scope read --scope write:contacts
      pmctl integrations connect int_... --tenant ten_...
      pmctl keys issue --integration int_... --tenant ten_... --agent acme-sync --scope read
    """
    ctx.ensure_object(dict)


# --- integrations ---------------------------------------------------------------------


@cli.group("integrations")
def integrations_group() -> None:
    """Vendor integrations: create, list, show, connect to tenants, disable."""


@integrations_group.command("create")
@click.option("--name", required=True, help="Vendor/product name, unique among integrations (case ignored).")
@click.option("--contact", required=True, help="Who to reach at the vendor, e.g. an e-mail address.")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    required=True,
    help="A scope the integration's keys may hold (repeat): read, write, write:<area>, destructive, admin. "
    "destructive and admin are never implied; name them to allow them.",
)
@JSON_OPTION
@store_command
def integrations_create(name: str, contact: str, scopes: tuple[str, ...], as_json: bool) -> None:
    """Create an integration and the scopes its keys may ever hold."""
    from chalicelib.store import (  # cold start: the store loads when a command runs, not for --help
        integrations as store,
    )

    created = store.create(name, contact, list(scopes))
    if "admin" in created["allowedScopes"]:
        _echo(
            "Note: admin lets the integration's keys create and disable keys in the tenants it is connected to.",
            err=True,
        )
    if as_json:
        _json({"integration": created})
        return
    _echo(
        f"Created integration {created['id']} {created['name']!r} "
        f"(allowed scopes: {', '.join(created['allowedScopes'])})."
    )


@integrations_group.command("list")
@JSON_OPTION
@store_command
def integrations_list(as_json: bool) -> None:
    """List every integration, oldest first."""
    from chalicelib.store import (  # cold start: the store loads when a command runs, not for --help
        integrations as store,
    )

    found = store.list_all()
    if as_json:
        _json({"integrations": found})
        return
    if not found:
        _echo("No integrations yet. Create one with `pmctl integrations create`.")
    for integration in found:
        _echo(_integration_line(integration))


@integrations_group.command("show")
@click.argument("integration_id", metavar="ID")
@JSON_OPTION
@store_command
def integrations_show(integration_id: str, as_json: bool) -> None:
    """Show one integration: its record, connected tenants and issued keys."""
    from chalicelib.store import (  # cold start: the store loads when a command runs, not for --help
        integrations as store,
    )
    from chalicelib.store import keys  # cold start: the store loads when a command runs, not for --help

    record = store.get(integration_id)
    if record is None:
        raise click.ClickException(
            f"No integration {integration_id}. `pmctl integrations list` shows them all. [integration_not_found]"
        )
    tenants = []
    for connection in store.connected_tenants(integration_id):
        try:
            company = keys.tenant_wire(keys.get_tenant(connection["tenantId"]))["companyName"]
        except ApiError:
            company = None
        tenants.append({**connection, "companyName": company})
    issued = store.issued_keys(integration_id)
    if as_json:
        _json({"integration": record, "tenants": tenants, "keys": issued})
        return
    _echo(_integration_line(record))
    _echo(f"created {record['createdAt']}" + (f", disabled {record['disabledAt']}" if record["disabled"] else ""))
    _echo(f"tenants ({len(tenants)}):")
    for t in tenants:
        _echo(f"  {t['tenantId']}  {t['companyName']}  connected {t['connectedAt']}")
    _echo(f"keys issued ({len(issued)}):")
    for k in issued:
        _echo(
            f"  {k['keyId']}  tenant {k['tenantId']}  agent {k['agentName']}  "
            f"scopes {', '.join(k['scopes'])}  issued {k['issuedAt']}"
        )


@integrations_group.command("connect")
@click.argument("integration_id", metavar="ID")
@click.option(
    "--tenant", "tenant_id", required=True, help="Tenant id (ten_...): from the signup answer or `pmctl tenants list`."
)
@JSON_OPTION
@store_command
def integrations_connect(integration_id: str, tenant_id: str, as_json: bool) -> None:
    """Connect an integration to a tenant, so keys can be issued for it there (repeating it changes nothing)."""
    from chalicelib.store import (  # cold start: the store loads when a command runs, not for --help
        integrations as store,
    )

    connection = store.connect(integration_id, tenant_id)
    if as_json:
        _json({"connection": connection})
        return
    _echo(f"Integration {integration_id} is connected to tenant {tenant_id} (since {connection['connectedAt']}).")


@integrations_group.command("disable")
@click.argument("integration_id", metavar="ID")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@JSON_OPTION
@store_command
def integrations_disable(integration_id: str, yes: bool, as_json: bool) -> None:
    """Disable an integration for good and every key it holds in every tenant (they answer 401)."""
    from chalicelib.store import (  # cold start: the store loads when a command runs, not for --help
        integrations as store,
    )

    record = store.get(integration_id)
    if record is None:
        raise click.ClickException(f"No integration {integration_id}. [integration_not_found]")
    if not yes:
        tenants = len(store.connected_tenants(integration_id))
        click.confirm(
            f"Disable integration {integration_id} {record['name']!r} and all its keys in {tenants} tenant(s)? "
            "There is no enable",
            abort=True,
        )
    result = store.disable(integration_id)
    if as_json:
        _json(result)
        return
    count = len(result["keysDisabled"])
    _echo(f"Disabled integration {integration_id} {record['name']!r} and {count} key(s); {KEY_CACHE_NOTE}.")


# --- keys -----------------------------------------------------------------------------


@cli.group("keys")
def keys_group() -> None:
    """API keys of integrations."""


@keys_group.command("issue")
@click.option("--integration", "integration_id", required=True, help="Integration id (int_...).")
@click.option("--tenant", "tenant_id", required=True, help="Tenant id (ten_...) the integration is connected to.")
@click.option(
    "--agent",
    "agent_name",
    required=True,
    help="Agent name of the key, e.g. acme-sync (one key per agent; a second only while rotating).",
)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    required=True,
    help="Scope of the key (repeat); within the integration's allowed scopes.",
)
@click.option(
    "--expires-at",
    default=None,
    help="Expiry, ISO 8601 (e.g. 2027-06-30T00:00:00Z); default: the service's default key lifetime.",
)
@JSON_OPTION
@store_command
def keys_issue(
    integration_id: str, tenant_id: str, agent_name: str, scopes: tuple[str, ...], expires_at: str | None, as_json: bool
) -> None:
    """Issue a key of a tenant for an integration's agent. Prints the secret once.

    The secret goes to stdout alone (KEY=$(pmctl keys issue ...) captures it); what was
    issued and the warning go to stderr."""
    from chalicelib.store import (  # cold start: the store loads when a command runs, not for --help
        integrations as store,
    )

    record, secret = store.issue_key(integration_id, tenant_id, agent_name, list(scopes), expires_at)
    _echo(
        f"Issued key {record['id']} for agent {record['agentName']!r} of integration {integration_id} "
        f"in tenant {tenant_id}; "
        f"scopes {', '.join(record['scopes'])}; expires {record.get('expiresAt') or 'never'}.",
        err=True,
    )
    _echo(
        "Warning: the secret below is shown only this once (only its hash is stored). Hand it to the vendor now.",
        err=True,
    )
    if as_json:
        _json({"apiKey": {**record, "key": secret}})
    else:
        _echo(secret)


# --- tenants --------------------------------------------------------------------------


@cli.group("tenants")
def tenants_group() -> None:
    """Tenants (customers who signed up): list, show, plan and throttle."""


@tenants_group.command("list")
@JSON_OPTION
@store_command
def tenants_list(as_json: bool) -> None:
    """List every tenant, oldest first."""
    from chalicelib.store.tenants import all_tenants  # cold start: the store loads when a command runs, not for --help

    found = all_tenants()
    if as_json:
        _json({"tenants": found})
        return
    if not found:
        _echo("No tenants yet. Customers sign up with POST /api/platform/v1/command/signup.")
    for tenant in found:
        _echo(_tenant_line(tenant))


@tenants_group.command("show")
@click.argument("tenant_id", metavar="TENANT_ID")
@JSON_OPTION
@store_command
def tenants_show(tenant_id: str, as_json: bool) -> None:
    """Show a tenant: its record (plan, trial end), its keys and connected integrations."""
    from chalicelib.ops import tenants as reads  # cold start: the store loads when a command runs, not for --help

    found = reads.show(tenant_id)
    if as_json:
        _json(found)
        return
    tenant, counts = found["tenant"], found["keys"]
    _echo(_tenant_line(tenant))
    _echo(f"created {tenant['createdAt']}")
    _echo(
        f"keys: {counts['total']} ({counts['active']} active, {counts['disabled']} disabled, "
        f"{counts['expired']} expired; "
        f"{counts['ofIntegrations']} of integrations)"
    )
    names = ", ".join(f"{i['name']} ({i['id']}{', disabled' if i['disabled'] else ''})" for i in found["integrations"])
    _echo(f"integrations: {names or 'none'}")


@tenants_group.command("set-plan")
@click.argument("tenant_id", metavar="TENANT_ID")
@click.option("--plan", default="enterprise", show_default=True, help="The plan the tenant is on.")
@click.option(
    "--trial-ends-at", default=None, help="Keep (or set) a trial ending at this ISO time instead of a paid plan."
)
@JSON_OPTION
@store_command
def tenants_set_plan(tenant_id: str, plan: str, trial_ends_at: str | None, as_json: bool) -> None:
    """Put a tenant on a plan: without --trial-ends-at a paid plan, and access returns at once after a trial ended."""
    from chalicelib.store import keys  # cold start: the store loads when a command runs, not for --help

    ends = clock.iso(dt.datetime.fromisoformat(trial_ends_at.replace("Z", "+00:00"))) if trial_ends_at else None
    tenant = keys.set_plan(tenant_id, plan, ends)
    if as_json:
        _json({"tenant": tenant})
        return
    _echo(_tenant_line(tenant))


@tenants_group.command("throttle")
@click.argument("tenant_id", metavar="TENANT_ID")
@click.option(
    "--per-key",
    "per_key",
    default=None,
    metavar="RATE[/BURST]",
    help="Every key's overall limit, calls per second (0 turns it off).",
)
@click.option(
    "--per-tenant",
    "per_tenant",
    default=None,
    metavar="RATE[/BURST]",
    help="The limit of all the tenant's keys together, calls per second (0 turns it off).",
)
@click.option(
    "--operation",
    "operations",
    multiple=True,
    metavar="NAME=RATE[/BURST]",
    help="A limit per key for one operation (repeatable).",
)
@click.option(
    "--reset",
    is_flag=True,
    help="Back to the defaults: 100/s, 200 at once per key; 300/s, 600 at once for all keys together; "
    "no per-operation limits.",
)
@JSON_OPTION
@store_command
def tenants_throttle(
    tenant_id: str,
    per_key: str | None,
    per_tenant: str | None,
    operations: tuple[str, ...],
    reset: bool,
    as_json: bool,
) -> None:
    """Set the tenant's safety throttle, shared by every instance: `--per-key 20/40 --per-tenant 60/120
    --operation contacts.create=2/5`. The settings given replace all earlier ones."""
    from chalicelib.store import keys  # cold start: the store loads when a command runs, not for --help

    settings: dict[str, Any] = {}
    if per_key is not None:
        settings["perKey"] = _rate(per_key)
    if per_tenant is not None:
        settings["perTenant"] = _rate(per_tenant)
    if operations:
        settings["operations"] = {name: _rate(spec) for name, _, spec in (op.partition("=") for op in operations)}
    if not reset and not settings:
        raise click.UsageError("Give --per-key, --per-tenant, --operation or --reset.")
    tenant = keys.set_throttle(tenant_id, None if reset else settings)
    if as_json:
        _json({"tenant": tenant})
        return
    _echo(f"{tenant['id']}  throttle: {json.dumps(tenant.get('throttle') or 'defaults')}")


def _rate(spec: str) -> dict[str, float]:
    rate, _, burst = spec.partition("/")
    try:
        return {"rate": float(rate), "burst": float(burst or rate)}
    except ValueError:
        raise click.BadParameter(f"{spec!r} is not RATE or RATE/BURST (numbers)") from None


@cli.group("backfill")
def backfill_group() -> None:
    """Fill in what a deployment added for items written before it."""


@backfill_group.command("changed-index")
@click.option("--dry-run", is_flag=True, help="Only count the entities that lack the key.")
@JSON_OPTION
@store_command
def backfill_changed_index(dry_run: bool, as_json: bool) -> None:
    """Give every live entity written before lists took `updatedSince` its key in that index
    (gsi5). Scans the table once; writes no audit record, feed entry or webhook event. Safe
    to run while the service runs, and again (it then finds nothing)."""
    from chalicelib.store import backfills  # cold start: store modules load when a command runs (module doc)

    def progress(count: backfills.FillCount) -> None:
        if not as_json:
            _echo(f"... {count.scanned} found, {count.filled} filled", err=True)

    count = backfills.fill_changed_index(dry_run=dry_run, progress=progress)
    if as_json:
        _json({"scanned": count.scanned, "filled": count.filled, "skipped": count.skipped, "dryRun": dry_run})
    elif dry_run:
        _echo(f"{count.scanned} live entities lack their updatedSince index key (nothing written)")
    else:
        _echo(
            f"filled the updatedSince index key of {count.filled} entities"
            f" ({count.skipped} changed or deleted meanwhile: their own write set it)"
        )


@cli.group("search")
def search_group() -> None:
    """The entity search's index (docs/concepts/search.md)."""


def _search_tenants(tenant_id: str | None) -> list[str]:
    """What the search commands share: the entity catalogue loaded, the index of the running
    `make serve` opened under --local, and the tenants asked for (one, or every tenant)."""
    from chalicelib import resources  # cold start: the registry loads when a command runs
    from chalicelib.entity_search import engine  # cold start: as above
    from chalicelib.store.tenants import all_tenants  # cold start: as above

    resources.load_all()  # the entity catalogue, which the searched types derive from
    root = click.get_current_context().find_root()
    if root.params.get("local"):
        engine.use(engine.file_in(str(state_dir())))
    return [tenant_id] if tenant_id else [t["id"] for t in all_tenants()]


@search_group.command("reindex")
@click.option("--tenant", "tenant_id", metavar="TENANT", help="Only this tenant (default: every tenant).")
@JSON_OPTION
@store_command
def search_reindex(tenant_id: str | None, as_json: bool) -> None:
    """Rebuild the entity search's index from the table: each tenant's rows cleared, then its live
    entities indexed. With --local, the index of the running `make serve` (its state folder)."""
    from chalicelib.entity_search import follow  # cold start: the registry loads when a command runs

    tenants = _search_tenants(tenant_id)
    done = {tenant: follow.reindex(operator_in(tenant)) for tenant in tenants}
    if as_json:
        _json({"reindexed": done})
        return
    for tenant, counts in done.items():
        _echo(f"{tenant}: {sum(counts.values())} entities indexed")


@search_group.command("verify")
@click.option("--tenant", "tenant_id", metavar="TENANT", help="Only this tenant (default: every tenant).")
@JSON_OPTION
@store_command
def search_verify(tenant_id: str | None, as_json: bool) -> None:
    """Compare the entity search's index with the table: per tenant the live entities missing from
    the index, those it holds with other text, and those it holds that are not live. Exits 1 when
    any tenant differs (`search reindex` mends it). With --local, the running `make serve`'s index."""
    from chalicelib.entity_search import follow  # cold start: the registry loads when a command runs

    tenants = _search_tenants(tenant_id)
    found = {tenant: follow.verify(operator_in(tenant)) for tenant in tenants}
    if as_json:
        _json({t: {"missing": d.missing, "stale": d.stale, "extra": d.extra} for t, d in found.items()})
    else:
        for tenant, difference in found.items():
            if difference.agrees:
                _echo(f"{tenant}: the index agrees with the table")
                continue
            _echo(
                f"{tenant}: {len(difference.missing)} missing, {len(difference.stale)} stale,"
                f" {len(difference.extra)} extra: " + " ".join(difference.missing + difference.stale + difference.extra)
            )
    if not all(d.agrees for d in found.values()):
        raise SystemExit(1)


# --- import ---------------------------------------------------------------------------


@cli.command("import")
@click.argument("export_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--files", "files_zip", type=click.Path(exists=True, dir_okay=False), help="The export's file archive.")
@click.option("--key", envvar="PM_API_KEY", required=True, help="A key of the target tenant (or PM_API_KEY).")
@click.option(
    "--url",
    envvar="PM_API_URL",
    default=lambda: f"http://127.0.0.1:{config.local_port()}",
    show_default="the local service (PM_PORT)",
    help="The service's base URL (or PM_API_URL).",
)
@JSON_OPTION
def import_export(export_file: str, files_zip: str | None, key: str, url: str, as_json: bool) -> None:
    """Post an export's lines (exports.show's downloadUrl, gzipped or not) to the tenant of KEY
    through the upserts, in order; documents and UVIs from the --files archive. Running it again
    changes nothing. Exits 1 when an item failed (each is listed)."""
    import zipfile  # cold start: as the store modules, loaded when the command runs

    from chalicelib import resources  # cold start: loads when the command runs
    from chalicelib.ops import importer  # cold start: loads when the command runs (module doc)

    resources.load_all()  # the entity types' fields: which of a document's are references (exports/load.py)
    api = importer.Api(url, key)
    with open(export_file, "rb") as stream:
        archive = zipfile.ZipFile(files_zip) if files_zip else None
        try:
            done = importer.run(api, importer.read_lines(stream), archive, lambda text: _echo(text, err=True))
        except importer.ImportRefused as refused:
            raise click.ClickException(str(refused)) from None
        finally:
            if archive is not None:
                archive.close()
    if as_json:
        _json({"counts": done.counts, "failures": done.failures})
    else:
        _echo(", ".join(f"{n} {outcome}" for outcome, n in done.counts.items()))
        for failure in done.failures:
            _echo(f"failed: {failure['type']} {failure['alias']}: {failure.get('code')} {failure.get('errors')}")
    if done.failures:
        raise SystemExit(1)


# --- sandboxes ---------------------------------------------------------------------------


@cli.group("sandbox")
def sandbox_group() -> None:
    """Sandbox tenants: made-up data to try things on (a vendor's, an agent builder's)."""


def _sandbox_lifecycle() -> Any:
    """sandbox/lifecycle.py, with the registry's operations loaded: a sandbox is written through them."""
    from chalicelib import resources  # cold start: loads when the command runs
    from chalicelib.sandbox import lifecycle  # cold start: as above

    resources.load_all()
    return lifecycle


@sandbox_group.command("create")
@click.option("--company", required=True, help="The sandbox company's name.")
@click.option("--email", required=True, help="Who owns it in the console (signs in with this address).")
@click.option(
    "--seed",
    default="demo",
    show_default=True,
    help="`demo`: the demo company (any other word: another demo company, the same for the same word); `empty`.",
)
@store_command
def sandbox_create(company: str, email: str, seed: str) -> None:
    """Create a sandbox and print JSON with its tenant and its first key (the secret, shown once)."""
    tenant, key, secret = _sandbox_lifecycle().create(company.strip(), email.strip(), seed)
    _json({"tenant": tenant, "apiKey": {**key, "key": secret}})


def operator_in(tenant_id: str) -> Any:
    """The operator acting in one tenant (every scope; the audit trail's channel `operator`)."""
    from chalicelib.context import CallContext  # cold start: the store loads when a command runs, not for --help
    from chalicelib.scopes import ALL_SCOPES  # cold start: as above
    from chalicelib.store.keys import OPERATOR_AGENT, OPERATOR_CHANNEL  # cold start: as above

    return CallContext(
        tenant_id=tenant_id,
        key_id="",
        agent_name=OPERATOR_AGENT,
        scopes=frozenset(ALL_SCOPES),
        channel=OPERATOR_CHANNEL,
    )


@sandbox_group.command("reset")
@click.argument("tenant_id", metavar="TENANT")
@JSON_OPTION
@store_command
def sandbox_reset(tenant_id: str, as_json: bool) -> None:
    """Put a sandbox back to its seed: what the seed does not hold deleted, its deleted entities
    restored, changed ones set back (all audited, webhooks sent); keys, members and webhooks stay."""
    done = _sandbox_lifecycle().reset(operator_in(tenant_id))
    if as_json:
        _json({"reset": done})
    else:
        _echo(", ".join(f"{n} {what}" for what, n in done.items()))


@sandbox_group.command("delete")
@click.argument("tenant_id", metavar="TENANT")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@store_command
def sandbox_delete(tenant_id: str, yes: bool) -> None:
    """End a sandbox: its keys disabled, its webhooks deleted, its people out of its team."""
    if not yes:
        click.confirm(f"End the sandbox {tenant_id} for good?", abort=True)
    _sandbox_lifecycle().delete(operator_in(tenant_id))
    _echo(f"sandbox {tenant_id} deleted")


# --- the local outbox -------------------------------------------------------------------


@cli.group("requestlogs")
def requestlogs_group() -> None:
    """Keys' request logs."""


@requestlogs_group.command("replay")
@click.option(
    "--queue-url",
    required=True,
    envvar="PM_REQUEST_LOG_FAILURE_QUEUE_URL",
    help="The stack's RequestLogFailureQueue (output RequestLogFailureQueueUrl).",
)
@click.option("--max-batches", type=click.IntRange(1), default=1000, show_default=True)
@store_command
def requestlogs_replay(queue_url: str, max_batches: int) -> None:
    """Store the request-log batches WriteRequestLogs gave up on (each message is Lambda's record
    of the failed invocation, the batch within), then delete them. Writing an entry twice is
    harmless: it is keyed by its request id."""
    import boto3  # cold start: the command's own clients

    from chalicelib import request_log_worker  # cold start: store modules load when a command runs (module doc)
    from chalicelib.store import requests  # cold start: as above

    sqs = boto3.client("sqs", region_name=config.region(), endpoint_url=config.aws_endpoint_url())
    batches = entries = 0
    while batches < max_batches:
        received = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        messages = received.get("Messages", [])
        if not messages:
            break
        for message in messages:
            record = json.loads(message["Body"])
            entries += requests.write_entries(request_log_worker.lines_of(record["requestPayload"]))
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            batches += 1
    _echo(f"replayed {batches} batch(es), {entries} request-log entries")


def _outbox_dir() -> str:
    """The outbox of the local service: $PM_OUTBOX_DIR where it is set, else the one a running
    `make serve` names in stack.json, else the state folder's."""
    if config.outbox_dir_setting():
        return config.outbox_dir()
    try:
        named = json.loads((state_dir() / STACK_FILE).read_text()).get("outboxDir")
    except (OSError, ValueError):
        named = None
    return str(named or state_dir() / "outbox")


@cli.command("outbox")
@click.option("--to", "recipient", help="Only mail to this address.")
@click.option("--code", "code_only", is_flag=True, help="Print only the code of the newest mail (needs --to).")
@click.option("--limit", default=5, show_default=True, help="How many messages, newest first.")
def outbox(recipient: str | None, code_only: bool, limit: int) -> None:
    """The mail the local service sent (sign-up and sign-in codes, invitations); without SES,
    `make serve` keeps it in .local/outbox/ instead of sending it."""
    from chalicelib import mail  # cold start: as the store modules, loaded when the command runs
    from chalicelib.store.mailed_codes import code_in  # cold start: as above

    messages = mail.outbox(to=recipient, limit=1 if code_only else limit, folder=_outbox_dir())
    if code_only:
        if not recipient:
            raise click.UsageError("--code needs --to ADDRESS.")
        found = code_in(messages[0].subject + "\n" + messages[0].text) if messages else None
        if not found:
            raise click.ClickException(f"No mail with a code to {recipient} in {_outbox_dir()}.")
        click.echo(found)
        return
    if not messages:
        _echo(f"No mail in {_outbox_dir()}" + (f" to {recipient}." if recipient else "."))
    for message in messages:
        _echo(f"--- {message.sent_at}  to {message.to}\nSubject: {message.subject}\n\n{message.text}")


def main() -> None:
    cli(prog_name="pmctl")


if __name__ == "__main__":
    main()
