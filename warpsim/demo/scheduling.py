"""Independent thread scheduling: the spin-wait, and warp-synchronous code."""

from __future__ import annotations

import io

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


class LockstepReads:
    """Shared-memory reads that rely on lockstep, from the sanitizer's racecheck.

    Each is a read-after-write hazard between two lanes of one warp with no
    __syncwarp() between them: right only while the warp runs in lockstep, and
    unsafe under independent thread scheduling.
    """

    def __init__(self, errors):
        hazards = [e for e in errors if e.kind == "RAW hazard" and e.warp_synchronous]
        self.count = sum(e.count for e in hazards)
        self.lines: dict = {}                 # source line of the read -> reads
        for e in hazards:
            line = e.accesses[-1].source_line.rsplit("/", 1)[-1]
            self.lines[line] = self.lines.get(line, 0) + e.count


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
    from ..sanitizer import check
    out = api.full(BLOCKS, -1, dtype=np.int32)
    with settings(scheduling=model), check(tools="racecheck", stream=io.StringIO()) as session:
        run = common.launch(KERNELS, kernel, BLOCKS, 64, (api.asarray(x), out), label=f"{kernel}, {model}")
    return out.get(), LockstepReads(session.errors), run


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
    rows, launches = [], {}
    for kernel, model in (("legacy_reduce", "stack"), ("legacy_reduce", "its"),
                          ("syncwarp_reduce", "stack"), ("syncwarp_reduce", "its")):
        got, check, launched = reduce(kernel, model, x)
        if model == "its":
            result.runs.append(launched)
            launches[kernel] = launched
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
    common.add_predicted(result, "legacy vs __syncwarp() reduction (its)", launches["legacy_reduce"],
                         launches["syncwarp_reduce"], "(the _sync version costs a few barriers)")
    if console is not None:
        from ..report.terminal import indent, table as make_table, text
        common.header(console, result, CLAIM)
        common.say(console, "  spin_wait under ", ("scheduling='stack'", "bold"), ": warpsim stops it and says why")
        folder = common.kernel_path(KERNELS).rsplit("/", 1)[0] + "/"
        console.print(indent(text((stack_message.replace(folder, ""), "yellow")), 4))
        common.say(console, "  spin_wait under ", ("scheduling='its'", "bold"),
                   f": {'completes, out[0] = 1' if its_done else 'did not complete'}")
        table = make_table(f"Reductions of {BLOCKS} blocks of 64 ints",
                           ["kernel", "scheduling", "sum", "reads relying on lockstep", "lines"])
        for kernel, model, right, check in rows:
            where = ", ".join(f"{line.rsplit(':', 1)[-1]}" for line in sorted(check.lines)) or "-"
            table.add_row(kernel, model, ("right", "green") if right else ("wrong", "red"),
                          f"{check.count} ({check.count // BLOCKS} per warp)", where)
        table.caption = ("A read relies on lockstep when another lane of its warp wrote the word after "
                         "the last __syncwarp/__syncthreads. warpsim's its scheduler keeps converged "
                         "lanes together, as the hardware usually does, so the legacy sum comes out "
                         "right here too; nothing guarantees it on Volta and later. "
                         "`warpsim check --tool racecheck` reports each of these reads.")
        console.print(table)
        console.print(common.figures_table(result))
    return result
