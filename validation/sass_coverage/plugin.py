"""A pytest plugin that profiles every launch of the tests it runs at level 'sass' and tallies why
launches fell back to PTX-level counts (validation/sass_coverage/README.md).

    python -m pytest -p validation.sass_coverage.plugin tests/kernels -q \
        --sass-coverage-out validation/sass_coverage/tests_kernels.json

Each test runs inside a warpsim Profiler(level='sass'); every launch's level and
note are recorded with the test's id. The tests' own assertions still run,
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
    from warpsim.sass.replay import ReplayRequest
    with ReplayRequest() as replays, Profiler(level="sass"):
        yield
    for launch, replay in replays._replays.values():
        outcome = replay.outcome()
        RECORDS.append({"test": item.nodeid, "kernel": launch.kernel, "level": outcome.level,
                        "note": outcome.note, "reason": classify(outcome.level, outcome.note),
                        "unsupported": [opcode for opcode, _ in outcome.unsupported]})


def pytest_sessionfinish(session):
    out = session.config.getoption("--sass-coverage-out")
    if out:
        with open(out, "w") as f:
            json.dump(RECORDS, f, indent=1)
    print()
    print(summary(RECORDS))
