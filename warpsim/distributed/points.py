"""One point of a sweep, as a Dask worker runs it: compile, launch under the profiler, one row.

A point is a dict of parameter values. For a CUDA kernel some names mean
something: `block`, `grid`, `shared_mem` (launch geometry), `options`
(compiler options added to the kernel's), `scheduling` (warpsim's scheduling
model), `variant` (which of several kernels), `gpu` (kept in the row and
given to the settings: the row then has the last launch's predicted time on
that GPU, `predicted_time_us`); the rest reach the
kernel only through the sweep's `args(point)`. A Python callable gets the
point as keyword arguments; a script gets it as `--name value` arguments.

Every point runs on a fresh simulated device, with sharding off (the sweep
already uses every worker). Whatever goes wrong (compile error, fault,
deadlock, a Python exception) becomes the row's error, never a lost sweep.
"""

from __future__ import annotations

import functools
import math
import operator
import runpy
import sys
import time
from dataclasses import fields

import numpy as np

from ..api.arrays import asarray, use_device
from ..api.raw import RawModule
from ..machine.device import Device
from ..profiler import profile
from ..settings import Settings, settings

GEOMETRY = ("block", "grid", "shared_mem")
KEY_METRICS = {
    "warp_instructions": "smsp__inst_executed.sum",
    "threads_per_instruction": "smsp__thread_inst_executed_per_inst_executed.ratio",
    "simt_efficiency_pct": "warpsim__simt_efficiency.pct",
    "divergent_branches": "smsp__sass_branch_targets_threads_divergent.sum",
    "global_ld_sectors_per_request": "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    "global_st_sectors_per_request": "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
    "shared_ld_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "registers_per_thread": "launch__registers_per_thread",
}
# The last launch's predicted time, when a GPU is chosen (point `gpu`, or the settings').
PREDICTED = "predicted_time_us"


def run_point(task: dict, point: dict) -> dict:
    """The row of one point: its parameters, ok/error, the last launch's key metrics, seconds."""
    started = time.perf_counter()
    row = {name: _cell(value) for name, value in point.items()}
    if "block" in point:                # block shapes as one number, for plots against block size
        row["block_threads"] = math.prod(_dims(point["block"]))
    row.update(ok=False, error="", launches=0)
    try:
        with _point_settings(point), profile() as prof, use_device(Device()):
            returned = _run(task, point)
        row["launches"] = len(prof)
        if len(prof):
            last = prof[len(prof) - 1]
            row.update({column: last.metrics.get(name) for column, name in KEY_METRICS.items()})
            if last.timing is not None:
                row[PREDICTED] = last.timing.time_s * 1e6
        if isinstance(returned, dict):
            row.update({name: _cell(value) for name, value in returned.items()})
        row["ok"] = True
    except Exception as exc:        # noqa: BLE001 -- a failed point is a row, whatever failed
        row["error"] = f"{type(exc).__name__}: {exc}".strip()
    row["seconds"] = time.perf_counter() - started
    return row


def _point_settings(point: dict):
    known = {f.name for f in fields(Settings)}
    changes = {"workers": 0, "scheduler": None, "progress": False}
    if point.get("scheduling") is not None:
        changes["scheduling"] = point["scheduling"]
    if "gpu" in known and point.get("gpu") is not None:
        changes["gpu"] = point["gpu"]
    return settings(**changes)


def _run(task: dict, point: dict):
    kind = task["kind"]
    if kind == "callable":
        return task["function"](**point)
    if kind == "script":
        return _run_script(task["path"], point)
    return _launch_cuda(task["kernels"][point.get("variant", task["default_variant"])], task, point)


def _run_script(path: str, point: dict):
    argv = [path] + [item for name, value in point.items() for item in (f"--{name}", str(value))]
    saved = sys.argv
    sys.argv = argv
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise RuntimeError(f"{path} exited with status {exc.code}") from None
    finally:
        sys.argv = saved


def _launch_cuda(kernel: dict, task: dict, point: dict):
    options = tuple(kernel["options"]) + tuple(point.get("options", ()) or ())
    function = _compiled(kernel["source"], options).get_function(kernel["name"])
    block = point.get("block", 128)
    grid = task["grid"](point) if task.get("grid") else point.get("grid") or _grid_for(point, block)
    args = task["args"](point) if task.get("args") else default_args(function.params, point)
    args = tuple(asarray(arg) if isinstance(arg, np.ndarray) else arg for arg in args)
    function(grid, block, args, shared_mem=int(point.get("shared_mem", 0)))


@functools.lru_cache(maxsize=64)
def _ptx(source: str, options: tuple) -> str:
    """PTX per source and options, compiled once per worker (points differ in launch, not code)."""
    return RawModule(code=source, options=options).ptx


def _compiled(source: str, options: tuple) -> RawModule:
    """A module on this point's device from PTX NVRTC made once (kernels by their PTX names)."""
    return RawModule(ptx=_ptx(source, options))


def default_args(params, point: dict) -> tuple:
    """Arguments from the point's `n` alone (no args= given), for sweeping sizes from the command line.

    A 64-bit parameter gets a zeroed device buffer of n x 8 bytes (a pointer
    to room for n elements of any type), a 32-bit integer gets n, a float 1.0.
    """
    n = int(point.get("n", 1))
    out = []
    for _, _, _, _, ptx_type in params:
        if ptx_type in ("u64", "b64", "s64"):
            out.append(np.zeros(n * 8, dtype=np.uint8))
        elif ptx_type in ("f32", "f64"):
            out.append(np.float32(1.0) if ptx_type == "f32" else np.float64(1.0))
        elif ptx_type in ("u32", "b32"):
            out.append(np.uint32(n))
        else:
            out.append(np.int32(n))
    return tuple(out)


def _grid_for(point: dict, block) -> int:
    """Enough CTAs to cover `n` threads when the point names an `n`; else one."""
    threads = math.prod(_dims(block))
    n = point.get("n")
    return max(1, -(-operator.index(n) // threads)) if n is not None else 1


def _dims(block) -> tuple:
    return tuple(block) if isinstance(block, (tuple, list)) else (operator.index(block),)


def _cell(value):
    """A value a CSV or Parquet column holds: numbers and strings as they are, others as text."""
    if value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        return value.item() if isinstance(value, np.generic) else value
    return str(tuple(value)) if isinstance(value, (list, tuple)) else str(value)
