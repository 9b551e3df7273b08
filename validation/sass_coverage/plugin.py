"""A pytest plugin that profiles every launch of the tests it runs at level 'sass' and tallies why
launches fell back to PTX-level counts (validation/sass_coverage/README.md).

    python -m pytest -p validation.sass_coverage.plugin tests/kernels -q \
        --sass-coverage-out validation/sass_coverage/tests_kernels.json

Each test runs inside a warpsim Profiler(level='sass'); every launch's level and
level_note are recorded with the test's id. The tests' own assertions still run,
so a launch is profiled with the inputs the test gives it.
"""

from __future__ import annotations

import json

import pytest

from validation.sass_coverage.tally import classify, summary

RECORDS: list = []


def pytest_addoption(parser):
    parser.addoption("--sass-coverage-out", default=None, help="where to write the launches' levels (JSON)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    from warpsim.profiler import Profiler
    with Profiler(level="sass") as profiler:
        yield
    for launch in profiler:
        RECORDS.append({"test": item.nodeid, "kernel": launch.kernel_name, "level": launch.level,
                        "note": launch.level_note, "reason": classify(launch.level, launch.level_note)})


def pytest_sessionfinish(session):
    out = session.config.getoption("--sass-coverage-out")
    if out:
        with open(out, "w") as f:
            json.dump(RECORDS, f, indent=1)
    print()
    print(summary(RECORDS))
