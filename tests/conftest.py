"""What every test gets: the WARPSIM_* environment as it was before the test, and profiles
verified by the PTX run (WARPSIM_SASS_VERIFY=1 unless the environment says otherwise).

Commands like `warpsim --scheduling stack ...` set environment variables so
scripts they run see them; a test that calls them must not leave them for
the tests after it.
"""

import os

import pytest

# Profiling at SASS level runs the PTX beside the SASS and compares their memory in every test
# (the differential check); WARPSIM_SASS_VERIFY=0 in the environment runs the tests without it.
os.environ.setdefault("WARPSIM_SASS_VERIFY", "1")


@pytest.fixture(autouse=True)
def warpsim_environment_restored():
    before = {k: v for k, v in os.environ.items() if k.startswith("WARPSIM_")}
    yield
    for key in [k for k in os.environ if k.startswith("WARPSIM_")]:
        if key not in before:
            del os.environ[key]
    os.environ.update(before)
