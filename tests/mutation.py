"""`make mutate`: mutation testing of the guards (tenants, scopes, sessions, limits) with mutmut 3.

Each group below names the modules to mutate and the test files about them. A group runs in a
work directory of its own (build/mutants/<group>: symlinks to the sources, this repository's
pyproject.toml with a [tool.mutmut] table for the group), because mutmut keeps one test
selection per directory: so a mutant of auth.py runs only against the auth tests, not against
every functional test that happens to authenticate (hours instead of minutes). Within a group,
mutmut runs each mutant only against the selected tests that call the mutated function (its
first, "stats", run records who calls what). Every run starts afresh (mutmut would keep a
survivor's verdict after a test that kills it was added).

mutmut's default forks a child per mutant from its main process, which has run the tests once:
that gave false kills here. The MCP bridge (chalicelib/mcp/bridge.py) keeps its event loop on a
thread of the process, which a fork does not copy, so in every child each MCP request timed out
and answered 500; every mutant that an MCP test reaches was "killed" (a mutant of auth.py that
survives the same tests run in a plain process among them). So each group runs with mutmut's fork
server (`process_isolation = "forkserver"`): a process that has only imported what the tests need
(PRELOAD, by name: importing starts no thread) forks the child of each mutant, which starts its
own stack, HTTP server and bridge as any test process does.

    python -m tests.mutation [group or module path ...]   # all groups when none is named
    MUTATE_JOBS=2                                          # mutants tested at once (default 2)

It prints, per module, killed / total and each mutant that was not killed (with its diff), and
writes the same to build/mutants/report.md. The Reliability section of docs/benchmarks.md keeps the figure
and the reasons why the remaining survivors are equivalent."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "mutants"
MUTMUT = Path(sys.executable).parent / "mutmut"
# what the copied tests import and read (the lock: the local stack checks its pins, chalicelib/local/pinned.py)
LINKED = ("chalicelib", "tests", "app.py", "mcp_app.py", ".chalice", "requirements.lock")


@dataclass(frozen=True)
class Group:
    modules: tuple[str, ...]
    tests: tuple[str, ...]  # files, or pytest node ids for one test of a larger file


F = "tests/functional/"
CONSOLE_AUTH = F + "test_console_auth.py::"
GROUPS = {
    # the key at the door and its scopes, and the one path every face's call takes through them
    "auth": Group(
        ("chalicelib/auth.py", "chalicelib/scopes.py", "chalicelib/dispatch.py"),
        (
            F + "test_auth.py",
            F + "test_auth_details.py",
            F + "test_roles.py",
            F + "test_mcp.py::test_a_read_only_key_sees_and_runs_only_queries",  # a pipeline step's scope
            F + "test_mcp.py::test_pipeline_feeds_results_forward",  # a step checked before its $expr is computed
            F + "test_accounts.py::test_each_request_of_a_key_is_in_its_log",  # the request id a call carries
            F + "test_bad_input.py::test_bad_credentials_answer_401_and_leave_no_trace_in_any_request_log",
            F + "test_pmctl.py::test_an_operator_onboards_a_vendor_and_the_vendor_key_works_over_http",  # integration
            F + "test_account_audit.py::test_sign_up_and_key_changes_are_audited",  # the operation a call stamps
            F + "test_aliases.py::test_alias_resolution_on_every_reference_argument",  # dispatch resolves references
            F + "test_read_areas.py",  # read:<area> and write:<area> scopes (scopes.py meets, holds, readable_areas)
            F + "test_untrusted_text.py",  # a key's untrustedText, as authenticate reads it
            F + "test_object_keys.py::test_a_key_limited_to_objects_shows_them_resolved_to_ids",  # a key's objects
            F + "test_object_keys.py::test_a_world_of_every_type_in_b_is_invisible_to_a_key_limited_to_a",  # allows
            F + "test_object_keys.py::test_a_limited_key_can_neither_see_nor_revert_a_move_into_its_objects",
            F + "test_rate_limits.py::test_sign_ups_are_limited_per_source_address",  # an anonymous call's source
            F + "test_signup_confirmation.py::test_sign_ups_are_limited_per_address_and_source",  # ... and its mail's
            F + "test_audit.py::test_revert_of_one_change",  # an operation refused to limited keys, run by a full one
            "tests/unit/test_scopes.py",  # area_scope runs at import, before the mutants' fork
        ),
    ),
    # the console's sessions, their sign-in codes (and a sign-up's), and who a session is
    "sessions": Group(
        ("chalicelib/console/auth.py", "chalicelib/store/sessions.py", "chalicelib/store/mailed_codes.py"),
        (
            F + "test_console_auth.py",
            F + "test_console_sessions.py",
            F + "test_signup_confirmation.py",
            "tests/unit/test_session_formats.py",  # what outlives a deploy: a code's hash, a form token
        ),
    ),
    # admission (integration disabled, trial ended) and the rate limits it counts against
    "limits": Group(
        ("chalicelib/account.py", "chalicelib/throttle.py", "chalicelib/store/rates.py"),
        (
            F + "test_rate_limits.py",
            F + "test_mcp_request_budget.py",
            F + "test_accounts.py",
            F + "test_signup_confirmation.py",
            F + "test_pmctl.py::test_disabling_an_integration_makes_its_keys_answer_401",
            F + "test_pmctl.py::test_a_disabled_integration_refuses_its_own_keys_only",  # the cache's key
            F + "test_pmctl.py::test_a_key_of_an_integration_that_is_gone_is_refused",
            F + "test_console_auth.py::test_invitations_are_limited_per_company",
            CONSOLE_AUTH + "test_a_strangers_sign_in_requests_neither_lock_the_person_out_nor_void_their_code",
            CONSOLE_AUTH + "test_a_source_that_signed_in_before_passes_when_strangers_filled_the_addresss_limit",
            F + "test_console_auth.py::test_one_companys_invitations_do_not_use_up_another_companys",
            "tests/unit/test_throttle_windows.py",  # a window's end, the memory of full windows
            "tests/unit/test_rate_leases.py",  # leases of the counters: their size, bounds, memory
            "tests/unit/test_account_cache.py",  # what an instance remembers of a tenant, an integration
            F + "test_sandbox_limits.py",  # a sandbox counts against its company's limits (issue 51)
            F + "test_call_weights.py",  # a call weighed by its work (account.charge)
            F + "test_object_key_pages.py",  # a limited key's page charged its reads
            F + "test_rate_limit_headers.py",  # what the limits tell of themselves (rates.room)
        ),
    ),
    # the cap on a tenant's live keys
    "live_keys": Group(("chalicelib/store/live_keys.py",), (F + "test_key_cap.py", "tests/unit/test_live_keys.py")),
    # what a key limited to objects reaches (issue 30): reads, lists, writes, audit, webhooks
    "reach": Group(
        ("chalicelib/store/reach.py",),
        (F + "test_object_keys.py", F + "test_object_key_pages.py", "tests/unit/test_reach.py"),
    ),
    # a limited key's feed and audit pages: judged in batches, bounded, weighed (issue 51)
    "feed_pages": Group(
        ("chalicelib/events/feed.py", "chalicelib/events/audit.py"),
        (F + "test_object_key_pages.py",),
    ),
    # sandboxes held to their company's account (issue 51)
    "sandboxes": Group(
        ("chalicelib/sandbox/company_account.py",),
        (F + "test_sandbox_limits.py",),
    ),
    # running exports: one per key, a tenant's ceiling, a worker's lease (issue 51)
    "exports": Group(
        ("chalicelib/store/exports.py",),
        tuple(
            F + "test_exports.py::" + name
            for name in (
                "test_one_export_of_a_key_runs_at_a_time_and_the_tenants_other_keys_export_meanwhile",
                "test_the_keys_of_an_integration_share_one_running_export",
                "test_a_dead_workers_export_frees_its_place_a_lease_later",
                "test_a_live_worker_renews_its_lease_and_one_that_outlived_it_stops",
            )
        ),
    ),
    # what a webhook hears by the areas of the key that made it (issue 51)
    "hearing": Group(("chalicelib/events/hearing.py",), (F + "test_webhook_areas.py",)),
    # how long an OAuth grant lives and what ends with it (issue 51)
    "grants": Group(
        ("chalicelib/store/grant_reach.py",),
        (F + "test_oauth_grant_lifetime.py", F + "test_oauth.py"),
    ),
    # an upsert compares only what its key may read (issue 51)
    "upserts": Group(
        ("chalicelib/resources/upserts.py",),
        (F + "test_upsert_reach.py", F + "test_process_update_upserts.py"),
    ),
    # the anonymous OAuth endpoints: where an authorize error may go, a client document's fetch (issue 51)
    "oauth_authorize": Group(
        ("chalicelib/mcp/oauth_routes.py", "chalicelib/mcp/client_documents.py"),
        (F + "test_oauth_authorize.py", F + "test_oauth.py", F + "test_oauth_protocol.py"),
    ),
    # the consent page: only what the client asked for and the person's role gives (issue 51)
    "oauth_consent": Group(
        ("chalicelib/console/pages/oauth_consent.py",),
        (F + "test_oauth_consent.py", F + "test_oauth.py", F + "test_oauth_grant_list.py"),
    ),
    # a key's calls counted from its request log (apikeys.usage, issue 52)
    "usage": Group(("chalicelib/store/requests.py",), (F + "test_apikeys_usage.py", F + "test_accounts.py")),
    # a webhook's recoveries: one at a time, a number a day (issue 51)
    "recoveries": Group(("chalicelib/store/recoveries.py",), (F + "test_recovery_limits.py",)),
}


# Lines that hold a refusal's prose are not mutated: a problem's `code` is its stable part
# (CONTRACT.md, Errors), which the tests assert; the wording ("XX...XX", upper or lower case,
# None) would add three or four mutants a sentence that only a test pinning the English could
# kill. Prose: a `raise Error("A sentence ...` line (a one-line raise's `code=` on that line goes
# unmutated with it; the tests pin every code), a line that is a sentence literal and nothing
# else (a message split over lines), and a throttle's `what="..."`. Literals without a space
# (keys, subjects, field names) stay mutated.
PROSE = (
    r'^\s*raise \w+\(\s*f?"[^"]* [^"]*"',
    r'^\s*f?"[^"]* [^"]*"\s*,?\s*$',
    r'^\s*what="[^"]* [^"]*",?\s*$',
)


# Imported once by the fork server, so that each mutant's child starts with them loaded (the
# conftest first: it sets the environment the apps read).
PRELOAD = (
    "tests.conftest", "app", "mcp_app", "chalicelib.local.stack", "chalicelib.local.http_server",
    "chalicelib.resources", "moto.server", "mcp.server.streamable_http_manager", "tests.mcp_client",
)  # fmt: skip


def chosen(names: list[str]) -> dict[str, Group]:
    """Groups by name; a module path runs its group's tests against that module alone."""
    if not names:
        return GROUPS
    picked: dict[str, Group] = {}
    for name in names:
        if name in GROUPS:
            picked[name] = GROUPS[name]
            continue
        owner = next((g for g, group in GROUPS.items() if name in group.modules), None)
        if owner is None:
            raise SystemExit(f"unknown group or module {name!r}; groups: {', '.join(GROUPS)}")
        picked[owner] = Group((*(picked[owner].modules if owner in picked else ()), name), GROUPS[owner].tests)
    return picked


def prepare(name: str, group: Group) -> Path:
    work = WORK / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for entry in LINKED:
        if (ROOT / entry).exists():
            (work / entry).symlink_to(ROOT / entry)
    settings = {
        "source_paths": ["chalicelib"],
        "only_mutate": list(group.modules),
        "pytest_add_cli_args_test_selection": list(group.tests),
        "pytest_add_cli_args": ["-p", "no:xdist"],  # mutmut runs the tests in its own processes
        "do_not_mutate_patterns": list(PROSE),
        "process_isolation": "forkserver",
        "forkserver_warmup": "import",
        "preload_modules_file": "preload.txt",
        "also_copy": [entry for entry in LINKED if entry not in ("chalicelib", "tests")],
    }
    (work / "preload.txt").write_text("\n".join(PRELOAD) + "\n", encoding="utf-8")
    table = "\n".join(f"{key} = {json.dumps(value)}" for key, value in settings.items())
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(f"{text}\n[tool.mutmut]\n{table}\n", encoding="utf-8")
    return work


def module_of(mutant: str) -> str:
    """chalicelib.store.sessions.x_find__mutmut_3 -> chalicelib/store/sessions.py"""
    return re.split(r"\.x[_ǁ]", mutant, maxsplit=1)[0].replace(".", "/") + ".py"


def run_group(name: str, group: Group, jobs: int) -> tuple[dict[str, str], dict[str, str], float]:
    """The verdict of every mutant (name -> status), the diffs of those not killed, seconds taken."""
    work = prepare(name, group)
    started = time.monotonic()
    with open(work / "run.log", "w", encoding="utf-8") as log:
        code = subprocess.call([str(MUTMUT), "run", "--max-children", str(jobs)], cwd=work, stdout=log, stderr=log)
    seconds = time.monotonic() - started
    if code != 0:
        print((work / "run.log").read_text(encoding="utf-8")[-3000:])
        raise SystemExit(f"mutmut failed on group {name} (exit {code}); its log: {work / 'run.log'}")
    listing = subprocess.run(
        [str(MUTMUT), "results", "--all", "true"], cwd=work, capture_output=True, text=True, check=True
    ).stdout
    verdicts = dict(
        line.strip().split(": ", 1) for line in listing.splitlines() if "__mutmut_" in line and ": " in line
    )
    diffs = {
        mutant: subprocess.run([str(MUTMUT), "show", mutant], cwd=work, capture_output=True, text=True).stdout
        for mutant, status in verdicts.items()
        if status != "killed"
    }
    return verdicts, diffs, seconds


def report(groups: dict[str, Group], jobs: int) -> str:
    lines: list[str] = []
    rows: list[tuple[str, int, int]] = []
    total_seconds = 0.0
    for name, group in groups.items():
        print(f"mutating {', '.join(group.modules)} against {', '.join(group.tests)} ...", flush=True)
        verdicts, diffs, seconds = run_group(name, group, jobs)
        total_seconds += seconds
        print(f"  {len(verdicts)} mutants in {seconds / 60:.1f} min", flush=True)
        for module in group.modules:
            mine = {m: s for m, s in verdicts.items() if module_of(m) == module}
            rows.append((module, sum(s == "killed" for s in mine.values()), len(mine)))
            for mutant, status in sorted(mine.items()):
                if status != "killed":
                    lines.append(f"### {mutant}: {status} (group {name})\n\n```diff\n{diffs[mutant].strip()}\n```\n")
    killed, total = sum(r[1] for r in rows), sum(r[2] for r in rows)
    table = ["| module | killed / total |", "|---|---|"]
    table += [f"| {module} | {k} / {t} |" for module, k, t in rows]
    table.append(f"| **all** | **{killed} / {total}** ({100 * killed / max(total, 1):.0f} %) |")
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    head = f"mutmut, {when}, {total_seconds / 60:.0f} min with {jobs} workers\n\n" + "\n".join(table)
    return head + "\n\n## Not killed\n\n" + ("\n".join(lines) or "none\n")


if __name__ == "__main__":
    if not MUTMUT.exists():
        raise SystemExit("mutmut is not installed: run `make mutate` (it installs requirements-mutate.txt)")
    text = report(chosen(sys.argv[1:]), int(os.environ.get("MUTATE_JOBS", "2")))
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "report.md").write_text(text, encoding="utf-8")
    print(text)
