"""Table entries for instructions the engine emits itself (not value functions).

They are listed here so the instruction table stays the one place that says
what warpsim supports, which family each opcode belongs to and which pipe it
issues to; the code generator's emitters give their semantics.
"""

from __future__ import annotations

from .registry import BARRIER, CONTROL, MEMORY, SPECIAL, WARP, OpSpec, register

_ATOMIC_OPS = {"add", "min", "max", "inc", "dec", "cas", "exch", "and", "or", "xor"}
_UNSUPPORTED_MEMORY = {"weak", "mmio", "L2::256B", "bulk_group", "async", "multimem"}


def _check_atomic(ins):
    if not (set(ins.mods) & _ATOMIC_OPS):
        return "atomic operation not supported (add/min/max/inc/dec/cas/exch/and/or/xor are)"
    if ins.type == "b16":               # atom.cas.b16 (sm_70+): 16-bit compare-and-swap only
        return None if "cas" in ins.mods else "16-bit atomics other than cas are not in PTX"
    if ins.type not in ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "f16x2", "bf16x2",
                        "f16", "bf16"):
        return f"atomic type .{ins.type} not supported"
    if ins.type in ("f16", "bf16") and "add" not in ins.mods:
        return "scalar f16/bf16 atomics other than add are not supported"
    vector = any(m in ("v2", "v4", "v8") for m in ins.mods)
    if vector and not ({"add", "min", "max"} & set(ins.mods) and ins.type in ("f32", "f16x2", "bf16x2", "f16", "bf16")):
        return "vector atomics are add/min/max on f32, f16 and bf16 (pairs)"
    return None


def _check_memory(ins):
    if ins.opcode in ("ld", "st") and set(ins.mods) & {"async", "bulk", "multimem"}:
        return "asynchronous/bulk memory operations are not supported"
    if "b128" in ins.mods:
        return ".b128 accesses are not supported"
    return None


def _check_copy(ins):
    """cp.async global->shared copies (and their groups); bulk/tensor copies are not simulated."""
    if "async" not in ins.mods:
        return "only cp.async is supported"
    if set(ins.mods) & {"bulk", "tensor", "reduce"}:
        return "bulk and tensor asynchronous copies (TMA) are not supported"
    if set(ins.mods) & {"commit_group", "wait_group", "wait_all", "mbarrier"}:
        return None
    if not {"shared", "global"} <= {m.split("::")[0] for m in ins.mods}:
        return "cp.async copies global to shared memory"
    return None


def _check_wmma(ins):
    from ..tensor import check
    return check(ins)


def _check_mma(ins):
    from ..tensor import check_mma
    return check_mma(ins)


def _check_mbarrier(ins):
    operations = {"init", "inval", "arrive", "arrive_drop", "test_wait", "try_wait",
                  "expect_tx", "complete_tx"}
    if not ins.mods or ins.mods[0] not in operations:
        return f"mbarrier.{ins.mods[0] if ins.mods else ''} is not supported"
    if "shared::cluster" in ins.mods:
        return "mbarriers of other CTAs in a cluster are not supported"
    return None


def _check_mov(ins):
    if ins.type in ("b128",):
        return ".b128 moves are not supported"
    return None


_ENTRIES = [
    ("mov", "move", "alu", SPECIAL, _check_mov),
    ("cvta", "move", "alu", SPECIAL, None),
    ("isspacep", "move", "alu", SPECIAL, None),
    ("ld", "memory", "lsu", MEMORY, _check_memory),
    ("ldu", "memory", "lsu", MEMORY, _check_memory),
    ("st", "memory", "lsu", MEMORY, _check_memory),
    ("atom", "atomics", "lsu", MEMORY, _check_atomic),
    ("red", "atomics", "lsu", MEMORY, _check_atomic),
    ("prefetch", "memory", "lsu", MEMORY, None),
    ("prefetchu", "memory", "lsu", MEMORY, None),
    ("discard", "memory", "lsu", MEMORY, None),
    ("applypriority", "memory", "lsu", MEMORY, None),
    ("createpolicy", "memory", "alu", MEMORY, None),
    ("membar", "memory", "lsu", MEMORY, None),
    ("fence", "memory", "lsu", MEMORY,
     lambda ins: "proxy fences are not supported" if "proxy" in ins.mods and "alias" not in ins.mods else None),
    ("cp", "memory", "lsu", MEMORY, lambda ins: _check_copy(ins)),
    ("mbarrier", "barrier", "sync", MEMORY, lambda ins: _check_mbarrier(ins)),
    ("wmma", "tensor", "tensor", WARP, lambda ins: _check_wmma(ins)),
    ("mma", "tensor", "tensor", WARP, lambda ins: _check_mma(ins)),
    ("ldmatrix", "tensor", "lsu", WARP,
     lambda ins: None if "m8n8" in ins.mods and "b16" in ins.mods else "ldmatrix.m8n8 .b16 is supported"),
    ("shfl", "warp", "alu", WARP, None),
    ("vote", "warp", "alu", WARP, None),
    ("match", "warp", "alu", WARP, None),
    ("redux", "warp", "alu", WARP,
     lambda ins: None if ins.type in ("u32", "s32", "b32") else f"redux.sync.{ins.type} is not supported"),
    ("activemask", "warp", "alu", WARP, None),
    ("elect", "warp", "alu", WARP, None),
    ("bar", "barrier", "sync", BARRIER, None),
    ("barrier", "barrier", "sync", BARRIER, None),
    ("bra", "control", "branch", CONTROL, None),
    ("brx", "control", "branch", CONTROL, lambda ins: "brx.idx is not supported"),
    ("call", "control", "branch", CONTROL, None),
    ("ret", "control", "branch", CONTROL, None),
    ("exit", "control", "branch", CONTROL, None),
    ("trap", "control", "branch", CONTROL, None),
    ("brkpt", "control", "branch", CONTROL, None),
    ("nanosleep", "control", "misc", CONTROL, None),
    ("pmevent", "control", "misc", CONTROL, None),
    ("griddepcontrol", "control", "misc", CONTROL, None),
]

for _opcode, _family, _pipe, _kind, _check in _ENTRIES:
    register(OpSpec(_opcode, _family, _pipe, _kind, check=_check))
