import os

import pytest
from hypothesis import HealthCheck, settings

import tapete
import tapete.reference

# CI (CI=true): the same examples on every run, no example database, no timing checks; the
# tests set their own example counts. Locally Hypothesis explores new examples each run.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

IMPLEMENTATIONS = {"engine": tapete, "reference": tapete.reference}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def impl(request):
    return IMPLEMENTATIONS[request.param]  # has .load_game(name, **config)
