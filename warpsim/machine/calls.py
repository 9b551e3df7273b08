"""Calls to non-inlined .func functions, recursion included.

Each thread has its own call stack of return blocks. A function that can be
re-entered while it is active (it is on a call-graph cycle) has its registers
and .param variables saved per thread and per depth on entry and restored on
return, so every activation has its own values; its local frame is moved to a
fresh per-depth slice of local memory.
"""

from __future__ import annotations

import numpy as np


def _grow_stack(ctx, depth: int):
    if ctx.call_stack.shape[0] < depth:
        grown = np.zeros((max(depth, 2 * ctx.call_stack.shape[0]), ctx.n), dtype=np.int64)
        grown[:ctx.call_stack.shape[0]] = ctx.call_stack
        ctx.call_stack = grown


def _saved(ctx, key: str, like: np.ndarray, depth: int) -> np.ndarray:
    store = ctx.saved.setdefault(key, np.zeros((0,) + like.shape, dtype=like.dtype))
    if store.shape[0] < depth:
        grown = np.zeros((max(depth, 2 * store.shape[0]),) + like.shape, dtype=like.dtype)
        grown[:store.shape[0]] = store
        store = ctx.saved[key] = grown
    return store


def _frame_keys(ctx, program, function: str):
    regs = [f"{function}::{r}" for r in program.module.functions[function].regs]
    return [k for k in regs if k in ctx.regs] + \
           [k for k in ctx.param_vars if k.startswith(function + "::")]


def enter_function(ctx, program, idx, callee: str, copies, return_gid: int):
    recursive = callee in program.recursive_functions
    depth = ctx.call_depth[idx]
    if recursive:
        for key in _frame_keys(ctx, program, callee):
            arr = ctx.regs.get(key)
            arr = arr if arr is not None else ctx.param_vars[key]
            _saved(ctx, key, arr, int(depth.max()) + 1)[depth, idx] = arr[idx]
    staged = [(dst, ctx.param_var(src)[idx].copy()) for src, dst, size in copies]
    for dst, values in staged:
        target = ctx.param_var(dst)
        target[idx, :values.shape[1]] = values[:, :target.shape[1]]
    _grow_stack(ctx, int(depth.max()) + 1)
    ctx.call_stack[depth, idx] = return_gid
    ctx.call_depth[idx] = depth + 1
    ctx.pc[idx] = program.function_entry[callee]
    if recursive and program.layout.local_size:
        ctx.ensure_local(program.layout.local_size * (int(depth.max()) + 2))


def leave_function(ctx, program, function: str, idx):
    depth = ctx.call_depth[idx] - 1
    if np.any(depth < 0):
        raise AssertionError("return with an empty call stack")
    return_gid = ctx.call_stack[depth, idx]
    # Read the return values before the caller's frame is restored: in a
    # recursive function caller and callee share the same .param variables.
    staged = []
    for gid in np.unique(return_gid):
        sel = idx[return_gid == gid]
        for src, dst, size in program.return_copies.get(int(gid), ()):
            staged.append((dst, sel, ctx.param_var(src)[sel, :size].copy(), size))
    if function in program.recursive_functions:
        for key in _frame_keys(ctx, program, function):
            if key in ctx.saved:
                arr = ctx.regs.get(key)
                arr = arr if arr is not None else ctx.param_vars[key]
                # A register first written deeper down was never saved at this depth.
                arr[idx] = _saved(ctx, key, arr, int(depth.max()) + 1)[depth, idx]
    for dst, sel, values, size in staged:
        ctx.param_var(dst)[sel, :size] = values
    ctx.call_depth[idx] = depth
    ctx.pc[idx] = return_gid
