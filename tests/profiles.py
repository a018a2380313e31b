"""Hypothesis profiles, chosen by HYPOTHESIS_PROFILE (issue 50): `dev` for `make test` (few
examples, derandomised: the same cases every run, so a red run is the code's), `ci` for `make
test-long` and CI (the counts the suite ran before the tiers), `nightly` for `make fuzz`.

Besides Hypothesis' own `max_examples` (cases per fuzzed operation), a profile sets the sizes of the
two runs that count in scenarios of many calls each: the fuzzer's stateful scenarios and the
isolation properties' drawn sequences (each besides its fixed example)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from hypothesis import HealthCheck, settings


@dataclass(frozen=True)
class Profile:
    examples: int  # generated cases per fuzzed operation
    scenarios: int  # stateful fuzzing: scenarios of up to 10 steps
    properties: int  # isolation properties: drawn sequences per property
    derandomize: bool


PROFILES = {
    "dev": Profile(examples=2, scenarios=1, properties=1, derandomize=True),
    "ci": Profile(examples=5, scenarios=5, properties=3, derandomize=False),
    "nightly": Profile(examples=200, scenarios=100, properties=30, derandomize=False),
}

NAME = os.environ.get("HYPOTHESIS_PROFILE", "dev")
if NAME not in PROFILES:
    raise SystemExit(f"HYPOTHESIS_PROFILE={NAME!r}: one of {', '.join(PROFILES)}")
PROFILE = PROFILES[NAME]

for _name, _profile in PROFILES.items():
    settings.register_profile(
        _name,
        max_examples=_profile.examples,
        derandomize=_profile.derandomize,
        deadline=None,  # every case is HTTP calls against a stack shared by busy workers
        database=None,  # nothing of a run is kept for the next one: the profile decides what runs
        suppress_health_check=list(HealthCheck),
    )
settings.load_profile(NAME)
