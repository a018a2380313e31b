"""The suite's tiers (issue 50): `make test` is the developer's run and guards everything
cheaply; the long scenarios, random generation at length, real browsers and spawned servers run
in `make test-long`; `make test-all` (CI) runs both.

A test leaves the default run by one of the LONG marks: `browser` and `e2e` follow from its
folder (tests/browser, tests/e2e), `fuzz`, `slow` and `quiet` are written on the test or its
file. `guard` marks the tests that kill the mutants of the guards (tests/mutation.py's groups);
a guard stays in the default run unless it is on SLOW_GUARDS (tests/contract/test_tiers.py).

    python -m tests.tiers default   # the marker expression of the default run (the Makefile's)
    python -m tests.tiers long      # ... of the long run
    python -m tests.tiers folders   # the folders `make test` collects beside tests/unit"""

from __future__ import annotations

import json
import sys

from tests.mutation import GROUPS

LONG = ("browser", "e2e", "fuzz", "slow", "quiet")
DEFAULT_RUN = "not (" + " or ".join(LONG) + ")"
LONG_RUN = " or ".join(LONG)
BY_FOLDER = {"browser": "tests/browser/", "e2e": "tests/e2e/"}
# Where the default run's tests live: the folders above are long entirely, so `make test` does not
# even collect them (each worker imported Playwright and the e2e helpers for nothing).
DEFAULT_FOLDERS = ("tests/functional", "tests/contract")

# Guards whose whole-world scenario takes half a minute or more: they run in the long tier, and
# each has a cheaper sibling in the default run that reaches the same guard (named beside it).
SLOW_GUARDS = {
    # a world of every type in b, each entity read through REST and MCP and as its alias: the same
    # rule on one world read through REST alone is test_a_world_of_every_type_in_b_is_invisible_to_a_key_limited_to_a
    "tests/functional/test_object_keys.py::test_every_entity_of_b_answers_404_through_rest_and_mcp_and_as_through_both",
    # every command of the catalogue sent at b: test_commands_outside_the_keys_objects_are_refused is the default run's
    "tests/functional/test_object_keys.py::test_no_command_of_a_key_limited_to_a_creates_or_changes_anything_in_b",
}


def guard_entries() -> list[str]:
    """Every test file or test that tests/mutation.py names."""
    return sorted({entry for group in GROUPS.values() for entry in group.tests})


def is_guard(nodeid: str, entries: list[str]) -> bool:
    """Whether a collected test (its node id) is one that tests/mutation.py names."""
    return any(nodeid == e or nodeid.startswith((e + "::", e + "[")) for e in entries)


def tier_marks(nodeid: str, entries: list[str]) -> list[str]:
    """The marks a test gets from where it lives and what names it."""
    marks = [mark for mark, folder in BY_FOLDER.items() if nodeid.startswith(folder)]
    if is_guard(nodeid, entries):
        marks.append("guard")
    return marks


DUMP = "PM_TIERS_DUMP"  # a file: the collection writes every test's node id and marks to it


def dump(path: str, marks: dict[str, list[str]]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        json.dump({nodeid: sorted(set(names)) for nodeid, names in marks.items()}, out)


def in_default_run(marks: set[str]) -> bool:
    return not marks & set(LONG)


if __name__ == "__main__":
    print({"default": DEFAULT_RUN, "long": LONG_RUN, "folders": " ".join(DEFAULT_FOLDERS)}[sys.argv[1]])
