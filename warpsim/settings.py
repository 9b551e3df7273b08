"""Simulation settings: per launch, per `with warpsim.settings(...)` block, or
from the environment (WARPSIM_SCHEDULING, WARPSIM_MAX_ROUNDS, ...)."""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Settings:
    scheduling: str = "auto"           # a registered model: 'its' (Volta+), 'stack' (pre-Volta), 'lowest-pc'; 'auto': by .target
    max_rounds: int = 2_000_000        # scheduling rounds before a launch counts as runaway
    max_instructions: int = 10_000_000_000   # warp instructions before the same
    batch_threads: int = 1 << 17       # thread slots simulated at once (bounds memory)
    progress: bool = True              # progress bar on a terminal for long launches
    workers: int = 0                   # > 1: launches split by CTA ranges over Dask workers (warpsim.distributed)
    scheduler: object = None           # a dask Client or a scheduler address (tcp://host:port) to run them on
    sharding: str = "auto"             # with workers: 'auto' shards a launch when the cost model expects a gain, 'always' whenever it can be exact
    device_memory: int = 141 * 10**9   # bytes of global memory of a new device (the H200's; capped by the host's)
    engine: str = "auto"              # block execution: 'numpy', 'compiled' (Numba machine code where it covers a block), 'auto'
    stack_size: int = 1024             # bytes of call stack per thread (cudaLimitStackSize's default)
    watchdog_seconds: float = 60.0     # CPU seconds a batch of CTAs may run (0: no watchdog)
    gpu: str = ""                      # a timing preset ('h200', 'h100', 'a100', 'l4'): profiles carry .timing; '': none
    contract: str = "ptxas"            # PTX add/sub fused with a mul where ptxas fuses them ('ptxas'), or never ('none'); read at load
    sass_verify: bool = False          # profiling at SASS level: the SASS run alone where it covers a launch; True: the PTX run beside it, memory compared
    event_time: str = "gpu"            # what a program's CUDA events read: predicted GPU time ('gpu') or the simulation's wall time ('wall')
    cuda: str = ""                     # the CUDA toolchain that compiles (NVRTC, ptxas, nvcc), e.g. '13.0' from the tool cache; '': the installed wheels'


ENVIRONMENT_NAMES = tuple(f"WARPSIM_{f.name.upper()}" for f in fields(Settings))


def _environment_values() -> tuple:
    """The WARPSIM_* variables as they are now (the raw bytes on POSIX: decoding each
    through os.environ costs more than a launch of a small kernel should)."""
    data = getattr(os.environ, "_data", None)
    if isinstance(data, dict) and os.name == "posix":
        return tuple(map(data.get, _ENCODED_NAMES))
    return tuple(map(os.environ.get, ENVIRONMENT_NAMES))


_ENCODED_NAMES = tuple(os.fsencode(name) for name in ENVIRONMENT_NAMES)
_from_environment_cache: dict = {}     # WARPSIM_* values -> the Settings they give


def _from_environment() -> Settings:
    """Settings from the environment, parsed once per distinct set of WARPSIM_* values (so a
    launch does not parse them again, and a changed variable is seen at the next launch)."""
    values = _environment_values()
    cached = _from_environment_cache.get(values)
    if cached is None:
        if len(_from_environment_cache) > 64:
            _from_environment_cache.clear()
        cached = _from_environment_cache[values] = _parse_environment(values)
    return cached


def _parse_environment(values: tuple) -> Settings:
    s = Settings()
    env = {f.name: v if v is None or isinstance(v, str) else os.fsdecode(v)
           for f, v in zip(fields(Settings), values)}
    changes = {}
    for f in fields(Settings):
        raw = env[f.name]
        if raw is None:
            continue
        changes[f.name] = raw if f.type in ("str", "object") else (raw not in ("0", "false", "no") if f.type == "bool" else
                                                                   float(raw) if f.type == "float" else int(raw))
    return replace(s, **changes)


_scheduling_names = None    # set by warpsim.machine.scheduling: () -> the names it accepts


def check_scheduling_with(names) -> None:
    """The scheduling registry says which names `scheduling` accepts (settings sit below it)."""
    global _scheduling_names
    _scheduling_names = names


def _check_scheduling(name) -> None:
    accepted = _scheduling_names() if _scheduling_names is not None else None
    if accepted is not None and name not in accepted:
        raise ValueError(f"unknown scheduling model '{name}' (choose from {', '.join(accepted)})")


CONTRACT_VALUES = ("ptxas", "none")


def check_contract(value) -> None:
    if value not in CONTRACT_VALUES:
        raise ValueError(f"unknown contract setting '{value}' (choose from {', '.join(CONTRACT_VALUES)})")


EVENT_TIME_VALUES = ("gpu", "wall")


def check_event_time(value) -> None:
    if value not in EVENT_TIME_VALUES:
        raise ValueError(f"unknown event_time setting '{value}' (choose from {', '.join(EVENT_TIME_VALUES)})")


_CUDA_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")


def check_cuda(value) -> None:
    if not isinstance(value, str) or not _CUDA_VERSION.match(value):
        raise ValueError(f"cuda={value!r}: give a CUDA version such as '13.0' or '13.0.88' ('' for the installed one)")


_current: contextvars.ContextVar = contextvars.ContextVar("warpsim_settings", default=None)


def current() -> Settings:
    value = _current.get()
    return value if value is not None else _from_environment()


@contextlib.contextmanager
def settings(**changes):
    """`with warpsim.settings(scheduling="stack"):` changes settings inside the block."""
    unknown = set(changes) - {f.name for f in fields(Settings)}
    if unknown:
        raise TypeError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    if "scheduling" in changes:
        _check_scheduling(changes["scheduling"])
    if "contract" in changes:
        check_contract(changes["contract"])
    if "event_time" in changes:
        check_event_time(changes["event_time"])
    if changes.get("cuda"):
        check_cuda(changes["cuda"])
    token = _current.set(replace(current(), **changes))
    try:
        yield current()
    finally:
        _current.reset(token)
