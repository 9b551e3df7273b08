"""The observer protocol is declared once (machine/events.py) and every executor finds its
observers through it: no executor probes an observer with hasattr, and each observer of
warpsim implements the events of one executor."""

from __future__ import annotations

import pathlib
import re

from warpsim.machine.events import EVENTS, LaunchObserver, observers_of
from warpsim.metrics.activity import ActivityTrace
from warpsim.metrics.counters import LaunchCounters, SassLaunchCounters
from warpsim.timing.execution import PtxRecorder, SassRecorder
from warpsim.timing.sample import LaunchTimingRecorder

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "warpsim"
SASS_EVENTS = {e for e in EVENTS if e.startswith("sass_")}
PTX_EVENTS = {"batch_started", "block_executed", "memory_access", "barrier_released", "cluster_barrier_released",
              "warp_sync_met",
              "batch_finished", "logged_warps", "compiled_rounds"}


def test_the_events_of_both_executors_and_the_round_loop_are_declared():
    assert PTX_EVENTS | SASS_EVENTS | {"launch_failed", "launch_finished"} == set(EVENTS)
    for event in EVENTS:
        assert getattr(LaunchObserver, event).__doc__, event


def test_no_executor_probes_observers_with_hasattr():
    probe = re.compile(r"(hasattr|getattr)\((obs|o|observer|observers?_?\w*)\b")
    found = [f"{p.relative_to(PACKAGE)}:{n}" for p in PACKAGE.rglob("*.py")
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if probe.search(line) and p.name != "events.py"]
    assert not found, found


def _overridden(cls) -> set:
    return {e for e in EVENTS if getattr(cls, e) is not getattr(LaunchObserver, e)}


def test_each_observer_implements_one_executors_events():
    for cls in (LaunchCounters, ActivityTrace, PtxRecorder, LaunchTimingRecorder):
        assert issubclass(cls, LaunchObserver) and not _overridden(cls) & SASS_EVENTS, cls
    for cls in (SassLaunchCounters, SassRecorder):
        assert issubclass(cls, LaunchObserver) and _overridden(cls) <= SASS_EVENTS, cls
        assert {"sass_block_issued", "sass_memory_access"} <= _overridden(cls)


def test_observers_of_picks_only_overriding_observers():
    class Blocks(LaunchObserver):
        def block_executed(self, ctx, block, idx, warps):
            pass

    class Rounds(Blocks):
        def compiled_rounds(self, ctx, record):
            pass

    observers = [Blocks(), Rounds(), LaunchObserver()]
    assert observers_of(observers, "block_executed") == observers[:2]
    assert observers_of(observers, "compiled_rounds") == [observers[1]]
    assert observers_of(observers, "logged_warps") == []
    assert observers_of(observers, "sass_block_issued") == []
