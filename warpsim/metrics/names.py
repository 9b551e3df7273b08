"""Metric names, as Nsight Compute spells them, and how warpsim computes each.

Every metric is a function of the launch's totals (warpsim.profiler's
`launch_totals()` turns a LaunchCounters, or the SASS run's SassLaunchCounters,
into them). Instruction counts are of the instructions that ran: SASS, as the
hardware counts them, when the profile is at SASS level (its default), else
PTX; ptxas schedules, fuses, unrolls and predicates, so PTX counts differ (see
SASS_NOTES and validation/metrics_comparison.md). Memory metrics (requests,
sectors, wavefronts, bank conflicts) follow from the addresses, so they match
the hardware whenever ptxas keeps the accesses as written, which it usually
does. Names starting with warpsim__ have no Nsight Compute counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..sass import stall_reasons as stall_table


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str                      # as ncu prints it ('' where ncu prints none)
    section: str                   # for grouping in reports
    description: str
    compute: Callable | None       # totals -> value (None: the timing model gives it)


def _ratio(a, b):
    return a / b if b else 0.0


def _pct(a, b):
    return 100.0 * a / b if b else 0.0


METRICS: list = []


def _add(name, unit, section, description, fn):
    METRICS.append(Metric(name, unit, section, description, fn))


# ---------------------------------------------------------------- instructions

_add("smsp__inst_executed.sum", "inst", "Instructions",
     "warp-level instructions executed, SASS or PTX as the profile's level (one per warp per instruction, "
     "guarded or not)",
     lambda t: t["inst"])
_add("smsp__thread_inst_executed.sum", "inst", "Instructions",
     "thread-level instructions executed (SASS or PTX as the level): active lanes summed over warp instructions",
     lambda t: t["thread_inst"])
_add("smsp__thread_inst_executed_per_inst_executed.ratio", "", "Instructions",
     "average active threads per warp instruction (32 = no divergence)",
     lambda t: _ratio(t["thread_inst"], t["inst"]))
_add("smsp__thread_inst_executed_pred_on.sum", "inst", "Instructions",
     "thread-level instructions whose guard predicate was true (unguarded ones count all active lanes)",
     lambda t: t["pred_on"])
_add("warpsim__simt_efficiency.pct", "%", "Instructions",
     "SIMT efficiency: active lanes / (32 x warp instructions)",
     lambda t: _pct(t["thread_inst"], 32 * t["inst"]))
_add("warpsim__inst_executed_op_barrier.sum", "inst", "Instructions",
     "warp-level CTA barrier instructions executed (bar.sync, barrier.sync, bar.red, bar.arrive)",
     lambda t: t["barrier_inst"])

# ---------------------------------------------------------------- branches

_add("smsp__sass_inst_executed_op_branch.sum", "inst", "Branches",
     "warp-level branch instructions executed (BRA in SASS, bra in PTX; ret and exit are not branches, as "
     "EXIT is not)",
     lambda t: t["branches"])
_add("smsp__sass_branch_targets.sum", "branches", "Branches",
     "branch decisions, one per warp-level branch executed (uniform + divergent)",
     lambda t: t["branches"])
_add("smsp__sass_branch_targets_threads_divergent.sum", "branches", "Branches",
     "warp-level branches whose active lanes went to different targets",
     lambda t: t["divergent"])
_add("smsp__sass_branch_targets_threads_uniform.sum", "branches", "Branches",
     "warp-level branches whose active lanes all went to one target",
     lambda t: t["branches"] - t["divergent"])
_add("smsp__sass_average_branch_targets_threads_uniform.pct", "%", "Branches",
     "uniform branch decisions as a percentage of all",
     lambda t: _pct(t["branches"] - t["divergent"], t["branches"]))

# ---------------------------------------------------------------- global, local memory

for _op, _what in (("ld", "loads"), ("st", "stores"), ("atom", "atomics with a result"),
                   ("red", "reductions (atomics without a result)")):
    _add(f"l1tex__t_requests_pipe_lsu_mem_global_op_{_op}.sum", "", "Global memory",
         f"global {_what}: requests (one per warp instruction with an active lane)",
         lambda t, o=_op: t[f"global_{o}_requests"])
    _add(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{_op}.sum", "sector", "Global memory",
         f"global {_what}: distinct 32-byte sectors touched by each request, summed",
         lambda t, o=_op: t[f"global_{o}_sectors"])
for _op in ("ld", "st"):
    _add(f"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{_op}.ratio", "sector",
         "Global memory", f"global {'loads' if _op == 'ld' else 'stores'}: sectors per request "
         "(4 = 32 lanes x 4 bytes perfectly coalesced)",
         lambda t, o=_op: _ratio(t[f"global_{o}_sectors"], t[f"global_{o}_requests"]))
    _add(f"warpsim__lines_pipe_lsu_mem_global_op_{_op}.sum", "line", "Global memory",
         "distinct 128-byte lines touched by each request, summed",
         lambda t, o=_op: t[f"global_{o}_lines"])
    _add(f"smsp__inst_executed_op_global_{_op}.sum", "inst", "Global memory",
         "warp-level global memory instructions executed with an active lane",
         lambda t, o=_op: t[f"global_{o}_requests"])
    _add(f"l1tex__t_requests_pipe_lsu_mem_local_op_{_op}.sum", "", "Local memory",
         "local memory requests (register spills, stack arrays)",
         lambda t, o=_op: t[f"local_{o}_requests"])
    _add(f"l1tex__t_sectors_pipe_lsu_mem_local_op_{_op}.sum", "sector", "Local memory",
         "local memory sectors (local words are interleaved across the lanes of a warp)",
         lambda t, o=_op: t[f"local_{o}_sectors"])

# ---------------------------------------------------------------- shared memory

for _op in ("ld", "st"):
    _what = "loads" if _op == "ld" else "stores"
    _add(f"smsp__inst_executed_op_shared_{_op}.sum", "inst", "Shared memory",
         f"warp-level shared {_what} executed with an active lane",
         lambda t, o=_op: t[f"shared_{o}_requests"])
    _add(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{_op}.sum", "", "Shared memory",
         f"shared {_what}: wavefronts (passes through the 32 banks) needed",
         lambda t, o=_op: t[f"shared_{o}_wavefronts"])
    _add(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{_op}.sum", "", "Shared memory",
         f"shared {_what}: bank conflicts = wavefronts beyond the ideal (one per phase: 1 for "
         "32-bit, 2 for 64-bit, 4 for 128-bit accesses)",
         lambda t, o=_op: t[f"shared_{o}_wavefronts"] - t[f"shared_{o}_ideal"])
_add("smsp__inst_executed_op_shared_atom.sum", "inst", "Shared memory",
     "warp-level shared-memory atomics executed", lambda t: t["shared_atom_requests"] + t["shared_red_requests"])

# ---------------------------------------------------------------- launch and occupancy

_add("launch__grid_size", "", "Launch", "blocks in the grid", lambda t: t["grid_size"])
_add("launch__block_size", "", "Launch", "threads per block", lambda t: t["block_size"])
_add("launch__thread_count", "thread", "Launch", "threads launched", lambda t: t["grid_size"] * t["block_size"])
_add("smsp__warps_launched.sum", "warp", "Launch", "warps launched", lambda t: t["warps_launched"])
_add("sm__ctas_launched.sum", "block", "Launch", "blocks launched", lambda t: t["grid_size"])
_add("launch__registers_per_thread", "register/thread", "Occupancy",
     "registers per thread (ptxas -v, or an estimate: see warpsim__registers_per_thread_source; "
     "at least 16 on sm_90, as the driver allocates)", lambda t: t["registers"])
_add("warpsim__registers_per_thread_source", "", "Occupancy",
     "where the register count comes from: ptxas, or estimate (PTX liveness)",
     lambda t: t["registers_source"])
_add("launch__shared_mem_per_block_static", "byte/block", "Occupancy",
     "static shared memory per block", lambda t: t["shared_static"])
_add("launch__shared_mem_per_block_dynamic", "byte/block", "Occupancy",
     "dynamic shared memory per block", lambda t: t["shared_dynamic"])
_add("launch__shared_mem_per_block_driver", "byte/block", "Occupancy",
     "shared memory the driver reserves per block (1 KB on sm_80 and later)", lambda t: t["shared_driver"])
_add("launch__shared_mem_config_size", "byte", "Occupancy",
     "shared-memory carveout of the SM (the driver's choice, modelled)", lambda t: t["shared_config"])
for _limit in ("registers", "shared_mem", "warps", "blocks"):
    _add(f"launch__occupancy_limit_{_limit}", "block", "Occupancy",
         f"blocks per SM the {_limit.replace('_', ' ')} allow", lambda t, k=_limit: t[f"limit_{k}"])
_add("sm__maximum_warps_per_active_cycle_pct", "%", "Occupancy",
     "theoretical occupancy: resident warps per SM / maximum", lambda t: t["occupancy_pct"])
_add("warpsim__occupancy_limiter", "", "Occupancy",
     "the limit(s) that bind the theoretical occupancy", lambda t: t["limiter"])


# Predicted by the timing model (warpsim.timing) when a GPU is chosen: a profile
# carries them only then, so they are not part of compute_metrics().
STALL_REASONS = tuple(sorted(reason.name for reason in stall_table.STALL_REASONS))
TIMING_METRICS = [
    Metric("gpu__time_duration.sum", "ns", "Timing", "predicted kernel duration, as Nsight Compute "
           "measures it", None),
    Metric("sm__cycles_elapsed.avg", "cycle", "Timing", "predicted SM cycles of the kernel", None),
    Metric("sm__warps_active.avg.pct_of_peak_sustained_active", "%", "Timing",
           "predicted achieved occupancy: resident warps per active cycle / maximum", None),
    Metric("smsp__issue_active.avg.pct_of_peak_sustained_active", "%", "Timing",
           "predicted share of cycles a scheduler issues an instruction", None),
] + [Metric(stall_table.BY_NAME[reason].metric, "", "Timing",
            f"predicted warps stalled ({reason.replace('_', ' ')}) per issue cycle", None)
     for reason in STALL_REASONS]

BY_NAME = {m.name: m for m in METRICS + TIMING_METRICS}
SECTIONS = list(dict.fromkeys(m.section for m in METRICS + TIMING_METRICS))

# Where the PTX-level counts of warpsim and the SASS-level counts of the
# hardware differ for reasons other than the addresses.
SASS_NOTES = {
    "smsp__inst_executed.sum": "PTX vs SASS: ptxas unrolls loops, fuses (FMA, address arithmetic into "
                               "LDG offsets), drops the parameter loads (they become constant-bank "
                               "operands) and adds its own (BSSY/BSYNC, the EXIT tail).",
    "smsp__thread_inst_executed_pred_on.sum": "ptxas predicates short if-bodies instead of branching; a "
                                              "predicated-off SASS instruction still counts in "
                                              "thread_inst_executed, not in pred_on.",
    "smsp__sass_branch_targets.sum": "ptxas turns `if (i < n) {...}` into a predicated EXIT or "
                                     "predicated body (no BRA), and unrolls loops (fewer BRA).",
}


def unknown_metrics(names) -> list:
    return [n for n in names if n not in BY_NAME]


def compute_metrics(totals: dict, names=None) -> dict:
    """name -> value for every metric (or those named, in that order)."""
    chosen = METRICS if names is None else [BY_NAME[n] for n in names if n in BY_NAME]
    return {m.name: m.compute(totals) for m in chosen if m.compute is not None}
