"""The profiler and sanitizer sessions of `warpsim profile ./app` and `warpsim check ./app`.

A compiled program runs in its own process, where warpsim's CUDA runtime runs
its kernels, so the sessions that watch launches must be there too. The same
`with profile():` / `with check():` blocks that serve a Python script serve a
program: while they are active in the CLI's process, `program_environment`
describes them in the child's environment (WARPSIM_TOOLS, JSON, with a results
file), and names this module as the runtime's startup (WARPSIM_RUNTIME_STARTUP).
In the program, `start_in_program` opens the same sessions when the runtime
starts, and at exit writes what they collected (launch profiles, sanitizer
errors, the timeline of kernels and copies) to the results file with pickle.
Back in the CLI, `collect` hands them to the sessions that asked, so the
existing reports render them.

The sanitizer prints each error in the program as its launch ends (the
program's output and the errors keep their order); the CLI's Checker counts
them as printed.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import tempfile
from dataclasses import fields

from ..runtime.calls import STARTUP

TOOLS = "WARPSIM_TOOLS"


# ------------------------------------------------------------------ in the CLI's process

def active_sessions() -> tuple:
    """(profilers, checkers) active in this process now."""
    from ..profiler import PROFILERS
    from ..sanitizer.active import active_checkers
    return PROFILERS.active(), active_checkers()


def settings_environment() -> dict:
    """The current settings (`settings(gpu=...)` blocks too) as WARPSIM_* variables for a child."""
    from ..settings import Settings, current
    now, default = current(), Settings()
    out = {}
    for f in fields(Settings):
        value = getattr(now, f.name)
        if value != getattr(default, f.name) and isinstance(value, (str, int, float, bool)):
            out[f"WARPSIM_{f.name.upper()}"] = str(int(value) if isinstance(value, bool) else value)
    return out


def tool_environment() -> tuple[dict, str | None]:
    """(variables for the program's environment, results file or None when no session is active)."""
    profilers, checkers = active_sessions()
    environment = settings_environment()
    if not profilers and not checkers:
        return environment, None
    handle, results = tempfile.mkstemp(prefix="warpsim-tools-", suffix=".pickle")
    os.close(handle)
    os.unlink(results)                        # written by the program at exit
    config = {"results": results,
              "profilers": [{"metrics": p.metrics, "level": p.level, "selection": p.selection.to_dict()}
                            for p in profilers],
              "checkers": [{"tools": list(c.tools), "print_limit": c.print_limit,
                            "print": c.stream is not None} for c in checkers]}
    environment.update({TOOLS: json.dumps(config), STARTUP: __name__})
    return environment, results


def collect(results: str | None) -> str:
    """Hand what the program's sessions collected to this process's; '' or why nothing came back."""
    if results is None:
        return ""
    profilers, checkers = active_sessions()
    try:
        with open(results, "rb") as handle:
            found = pickle.load(handle)
    except FileNotFoundError:
        return ("the program ended without writing the tools' results (it never called the CUDA "
                "runtime, or it was killed or called _exit before exit handlers ran)")
    finally:
        if os.path.exists(results):
            os.unlink(results)
    for profiler, launches in zip(profilers, found["profilers"]):
        for launch in launches:
            profiler.add_launch(launch)
        profiler.timeline = found["timeline"]
    for checker, outcome in zip(checkers, found["checkers"]):
        checker.merge(outcome["errors"], printed=outcome["printed"], launches=outcome["launches"])
    return ""


# ------------------------------------------------------------------ in the program's process

def start_in_program(context) -> None:
    """Open the sessions WARPSIM_TOOLS describes (called once, when the runtime starts)."""
    import warnings
    from ..profiler import LaunchSelection, Profiler
    from ..sanitizer.session import Checker
    config = json.loads(os.environ[TOOLS])
    profilers = [Profiler(p["metrics"], p["level"], LaunchSelection(**p["selection"]), all_threads=True).__enter__()
                 for p in config["profilers"]]               # the program's threads all launch: ncu sees each
    checkers = [Checker(c["tools"], c["print_limit"], sys.stdout if c["print"] else None, all_threads=True).__enter__()
                for c in config["checkers"]]
    if any("synccheck" in c.tools for c in checkers):   # its errors say what SyncWarnings would
        from ..machine.device import SyncWarning
        warnings.simplefilter("ignore", SyncWarning)
    from ..settings import current
    context.timeline_on = bool(profilers) and bool(current().gpu)   # `warpsim profile --gpu NAME ./app`
    if any("memcheck" in c.tools for c in checkers):   # faults as compute-sanitizer's memcheck ends them
        context.watch_faults_as_memcheck()

    def write_results() -> None:
        found = {"profilers": [p.launches for p in profilers],
                 "checkers": [{"errors": c.errors, "printed": c._printed, "launches": c.launches}
                              for c in checkers],
                 "timeline": list(context.timeline)}
        with open(config["results"], "wb") as handle:
            pickle.dump(found, handle)
    context.at_exit.append(write_results)
