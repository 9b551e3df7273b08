"""Independent thread scheduling: the spin-wait, and warp-synchronous code."""

from __future__ import annotations

import numpy as np

from ..errors import DeadlockError
from . import common

NAME = "scheduling"
TITLE = "Independent thread scheduling"
CLAIM = """
Before Volta a warp shared one program counter: if lane 0 spins waiting for a
flag that lane 1 sets after the branch, and the warp runs lane 0's path first,
lane 1 never runs. Since Volta each thread has its own PC and the scheduler
interleaves divergent paths, so the same code completes. The same change makes
legacy warp-synchronous code (shared memory, no barrier, relying on lockstep)
unsafe: use the _sync intrinsics and __syncwarp().
"""
KERNELS = "scheduling.cu"
BLOCKS = 4


class LockstepDependences:
    """Shared-memory reads of a word that another lane of the same warp wrote since
    the warp last synchronized (__syncwarp, __syncthreads).

    Each one is correct only if the lanes run in lockstep: under independent thread
    scheduling the reader may run before the writer. This is a small check for this
    demo, not the sanitizer: it follows 4-byte words of shared memory only.
    """

    def __init__(self):
        self.count = 0
        self.lines: dict = {}                 # source line -> reads that relied on lockstep

    def batch_started(self, ctx):
        words = max(1, ctx.n_ctas * ctx.shared_size // 4)
        self.writer = np.full(words, -1, dtype=np.int64)
        self.written_in = np.zeros(words, dtype=np.int64)
        self.epoch = np.zeros(ctx.n_warps, dtype=np.int64)
        self.synced = np.full(ctx.n_warps, -1, dtype=np.int64)
        self.execution = 0
        self.sync_ins = {id(b.instructions[0]) for b in ctx.program.blocks if b.kind != "code"}
        self.block_of = {id(ins): b for b in ctx.program.blocks for ins in b.instructions}

    def _synchronize(self, warps):
        fresh = warps[self.synced[warps] != self.execution]
        self.epoch[fresh] += 1
        self.synced[fresh] = self.execution

    def block_executed(self, ctx, block, idx, warps):
        if block.kind != "code":               # a barrier or warp sync opened this block
            self._synchronize(warps)
        self.execution += 1

    def batch_finished(self, ctx):
        pass

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        if space != "shared" or not len(idx):
            return
        block = self.block_of.get(id(site.ins))
        if block is not None and block.kind != "code":
            self._synchronize(np.unique(idx >> 5))   # the sync ran before this access
        from ..machine.memory import SHARED_WINDOW
        a = addrs.astype(np.uint64)
        off = np.where(a >= SHARED_WINDOW, a - np.uint64(SHARED_WINDOW), a).astype(np.int64)
        words = (ctx.cta[idx] * ctx.shared_size + off) // 4
        warp = idx >> 5
        if kind == "load":
            writer = self.writer[words]
            relied = (writer >= 0) & (writer != idx) & ((writer >> 5) == warp) & \
                     (self.written_in[words] == self.epoch[warp])
            hits = int(relied.sum())
            if hits:
                self.count += hits
                line = site.source_line.rsplit("/", 1)[-1]
                self.lines[line] = self.lines.get(line, 0) + hits
        else:
            self.writer[words] = idx
            self.written_in[words] = self.epoch[warp]


def spin_wait(model: str):
    """(completed, message) of the spin-wait under one scheduling model."""
    from .. import api
    from ..settings import settings
    flag, out = api.zeros(1, dtype=np.int32), api.zeros(1, dtype=np.int32)
    try:
        with settings(scheduling=model):
            common.launch(KERNELS, "spin_wait", 1, 32, (flag, out), label=f"spin_wait, {model}")
    except DeadlockError as exc:
        return False, str(exc)
    return int(out.get()[0]) == 1, ""


def reduce(kernel: str, model: str, x: np.ndarray):
    from .. import api
    from ..settings import settings
    out = api.full(BLOCKS, -1, dtype=np.int32)
    check = LockstepDependences()
    with settings(scheduling=model):
        run = common.launch(KERNELS, kernel, BLOCKS, 64, (api.asarray(x), out), observers=[check],
                            label=f"{kernel}, {model}")
    return out.get(), check, run


def run(console=None) -> common.DemoResult:
    result = common.DemoResult(NAME, TITLE)
    stack_done, stack_message = spin_wait("stack")
    its_done, _ = spin_wait("its")
    result.figures.update(spin_stack_completed=stack_done, spin_stack_message=stack_message,
                          spin_its_completed=its_done)
    result.add("spin-wait under 'stack' (pre-Volta)", "DeadlockError" if not stack_done else "completed",
               "hangs", not stack_done and "pre-Volta" in stack_message)
    result.add("spin-wait under 'its' (Volta+)", "completed" if its_done else "did not complete",
               "completes", its_done)

    x = np.random.default_rng(3).integers(-1000, 1000, 64 * BLOCKS).astype(np.int32)
    expected = x.reshape(BLOCKS, 64).sum(axis=1)
    rows = []
    for kernel, model in (("legacy_reduce", "stack"), ("legacy_reduce", "its"),
                          ("syncwarp_reduce", "stack"), ("syncwarp_reduce", "its")):
        got, check, launched = reduce(kernel, model, x)
        if model == "its":
            result.runs.append(launched)
        right = bool(np.array_equal(got, expected))
        rows.append((kernel, model, right, check))
        result.figures[f"{kernel}|{model}"] = dict(correct=right, lockstep_reads=check.count,
                                                   lines=dict(check.lines))
    legacy = result.figures["legacy_reduce|stack"]
    safe = result.figures["syncwarp_reduce|its"]
    per_warp = legacy["lockstep_reads"] // BLOCKS
    result.add("legacy warp-synchronous reduction under 'stack'",
               "right sum" if legacy["correct"] else "wrong sum", "right (lockstep)", legacy["correct"])
    result.add("legacy reduction: reads that rely on lockstep, per warp", f"{per_warp}",
               "unsafe under its", per_warp == 16 + 24 + 28 + 30 + 31)
    result.add("__syncwarp() version: right sum, reads relying on lockstep",
               f"{'right' if safe['correct'] else 'wrong'}, {safe['lockstep_reads']}", "safe under both",
               safe["correct"] and safe["lockstep_reads"] == 0 and result.figures["syncwarp_reduce|stack"]["correct"])
    if console is not None:
        from rich.table import Table
        from rich.padding import Padding
        from rich.text import Text
        common.header(console, result, CLAIM)
        console.print("  spin_wait under [bold]scheduling='stack'[/]: warpsim stops it and says why")
        folder = common.kernel_path(KERNELS).rsplit("/", 1)[0] + "/"
        console.print(Padding(Text(stack_message.replace(folder, ""), style="yellow"), (0, 0, 0, 4)))
        console.print(f"  spin_wait under [bold]scheduling='its'[/]: "
                      f"{'completes, out[0] = 1' if its_done else 'did not complete'}")
        table = Table(title=f"Reductions of {BLOCKS} blocks of 64 ints", title_justify="left")
        for title in ("kernel", "scheduling", "sum", "reads relying on lockstep", "lines"):
            table.add_column(title)
        for kernel, model, right, check in rows:
            where = ", ".join(f"{line.rsplit(':', 1)[-1]}" for line in sorted(check.lines)) or "-"
            table.add_row(kernel, model, "[green]right[/]" if right else "[red]wrong[/]",
                          f"{check.count} ({check.count // BLOCKS} per warp)", where)
        table.caption = ("A read relies on lockstep when another lane of its warp wrote the word after "
                         "the last __syncwarp/__syncthreads. warpsim's its scheduler keeps converged "
                         "lanes together, as the hardware usually does, so the legacy sum comes out "
                         "right here too; nothing guarantees it on Volta and later.")
        console.print(table)
        console.print(common.figures_table(result))
    return result
