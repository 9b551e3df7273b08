"""The run loop: rounds of warp scheduling over a batch of CTAs.

Each round has four phases:
  1. select   every warp picks one group of lanes: the scheduling model
              (machine/scheduling/) says which, so divergent paths are
              serialized and lanes reconverge where the model says;
  2. execute  groups at the same block, across all warps and CTAs, run that
              block together as one vectorized call (a warp-synchronous block
              first asks the model which named lanes have met);
  3. meet     CTA barriers release when every expected thread is there; when
              nothing can run, lanes whose .sync partners exited are let go;
  4. guard    no progress at all is a deadlock, a repeating state a livelock,
              too many rounds or instructions a runaway.
Once blocks run compiled, the compiled loop (compiled/loop.py) runs whole
rounds of them in machine code, between the guard's looks, and hands back the
first round that chooses a block it does not cover.
The engine holds no instruction semantics: blocks are compiled from the
instruction table (codegen.py, isa/), and bar.red's value comes from the
barrier family (isa/barriers.py).
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import BudgetExceeded, DeadlockError
from ..semantics import barriers
from ..semantics.clock import LONE_WARP_CYCLES_PER_ISSUE
from .lanes import lanes_text
from .codegen import compile_block
from .compiled import LONG_BATCH_ROUNDS, block_tier, check_engine, compiled_loop, compiled_rounds
from .isa.barriers import reduce_barrier
from .events import observers_of
from .scheduling import SchedulingModel, model_for
from .scheduling.warp_sync import collective_kind
from .state import AT_BARRIER, AT_WARP_SYNC, EXITED, RUNNING

NO_PC = np.iinfo(np.int64).max
LIVELOCK_FIRST = 256      # rounds past the model's patience of the first check (a small endless spin is told soon)
LIVELOCK_EVERY = 4096     # rounds between the later checks for a repeating state
LIVELOCK_WINDOW = 64      # rounds a check watches for a state seen before


def first_watch(ctx) -> int:
    """The round the first livelock watch window opens (see watch_offset)."""
    return LIVELOCK_FIRST + getattr(ctx.model, "patience", 0)


def watch_offset(ctx, round_no: int) -> int:
    """How far into a livelock watch window round `round_no` is, or -1 outside one. Windows open
    at every multiple of LIVELOCK_EVERY and once earlier, LIVELOCK_FIRST rounds after the
    model's patience (independent thread scheduling holds a spinning group for `patience` rounds
    before it rotates to the others, a wait whose rounds look alike but that ends)."""
    first = first_watch(ctx)
    if first <= round_no < first + LIVELOCK_WINDOW:
        return round_no - first
    if round_no >= LIVELOCK_EVERY and round_no % LIVELOCK_EVERY < LIVELOCK_WINDOW:
        return round_no % LIVELOCK_EVERY
    return -1


def run_batch(ctx, observers=()):
    program = ctx.program
    model = model_for(ctx.settings.scheduling, program.module.target)
    ctx.model = model
    ctx.engine = check_engine(ctx.settings.engine)
    model.start(ctx)
    ctx.block_cycles = block_cycles(program, ctx.kernel)
    if observers:                         # (the launch state starts with none of each)
        ctx.block_observers = observers_of(observers, "block_executed")
        ctx.barrier_observers = observers_of(observers, "barrier_released")
        ctx.cluster_barrier_observers = observers_of(observers, "cluster_barrier_released")
        ctx.warp_sync_observers = observers_of(observers, "warp_sync_met")
    barrier_waits = False     # whether threads may be waiting at a CTA barrier
    compiled_select = NOT_YET   # compiled_rounds(ctx, model), looked up when a round first selects
    loop = compiled_loop(ctx, model)
    ctx.start_clock()                     # CPU seconds: a loaded machine does not make a launch run away
    ctx.watchdog_look = ctx.wall_started + WATCHDOG_LOOK_EVERY
    watchdog = ctx.settings.watchdog_seconds
    # Every thread starts at the entry block: the first round's groups are known without select.
    first_round = starting_group(ctx) if loop is None and model.select_converged_start(ctx) else None
    while True:
        groups, first_round = first_round, None
        from_loop = False
        if loop is None and ctx.rounds and ctx.rounds % LONG_BATCH_ROUNDS == 0:   # a long batch: its loop
            loop = compiled_loop(ctx, model, long_running=True)                  # pays once it spent its cost
        if groups is None:                  # (the first round's group is known: every thread runs)
            if ctx.n <= CONVERGED_UP_TO and ctx.status.tobytes() == _EXITED_BYTE * ctx.n:
                return                          # (every thread exited: a small batch's last look, one compare)
            runnable = ctx.status == RUNNING
            if not np.count_nonzero(runnable):
                if np.count_nonzero(ctx.status == EXITED) == ctx.n:    # nobody waits at a barrier either
                    return
                if release_barriers(ctx) or wake_warp_syncs(ctx):
                    continue
                raise deadlock(ctx)
            # 1. select (the compiled loop runs whole rounds of covered blocks first)
            if loop is not None and (limit := loop_limit(ctx)):
                groups = loop(ctx, limit)       # rounds run; the groups of one it does not cover
                if groups is None:              # it stopped between rounds: guard, then a new round
                    guard(ctx, watchdog, rounds_done=0)
                    continue
                from_loop = True
            if groups is None:
                if compiled_select is NOT_YET:
                    compiled_select = compiled_rounds(ctx, model)
                groups = (compiled_select(ctx, model) if compiled_select is not None   # compiled/rounds.py
                          else converged_group(ctx, model, runnable) or issuing_groups(ctx, model, runnable, LANES))
        # 2. execute
        if not from_loop:
            ctx.round_clocked = ctx.clocked     # (a round the loop began set it: RoundLoop.run)
        for gid, idx, ws in groups:
            execute(ctx, gid, idx, ws)
            barrier_waits |= program.blocks[gid].kind == "barrier"
        # 3. meet: only a barrier block makes threads wait, so scan only after one ran
        if barrier_waits:
            barrier_waits = bool((ctx.status == AT_BARRIER).any())
            if barrier_waits:
                release_barriers(ctx)
                barrier_waits = bool((ctx.status == AT_BARRIER).any())
        # 4. guard
        guard(ctx, watchdog, rounds_done=1)


CLOCK_SOURCES: list = []       # functions (program, kernel) -> per-block clock cycles, or None
CLOCK_REGISTERS = ("%clock", "%clock64", "%clock_hi")


def clock_source(function):
    """Register `function(program, kernel)`: per block of the program (by gid), the cycles one warp's
    issue of it stands for on the clock, from what the machine does not know (the kernel's SASS:
    sass/ptx_blocks.py), or None. A decorator; the machine never imports who registers."""
    if function not in CLOCK_SOURCES:
        CLOCK_SOURCES.append(function)
    return function


def block_cycles(program, kernel: str) -> np.ndarray:
    """Per block of the program, the issue cycles one warp's issue of it adds to the clock kernels
    read (semantics/clock.py). For a program that reads the clock, what a clock source says (the
    cycles of the SASS each block stands for), so that a wait on clock64() runs the iterations the
    SASS executor and the GPU run; kept per kernel. Else, or where no source can (no SASS: ptxas
    refused the PTX), LONE_WARP_CYCLES_PER_ISSUE an instruction."""
    kept = program.__dict__.setdefault("_clock_cycles", {})
    if kernel not in kept:
        kept[kernel] = None
        if reads_clock(program):
            for source in CLOCK_SOURCES:
                kept[kernel] = source(program, kernel)
                if kept[kernel] is not None:
                    break
    cycles = kept[kernel]
    if cycles is None:
        cycles = program.__dict__.get("_block_cycles")
        if cycles is None:
            cycles = program._block_cycles = np.array([LONE_WARP_CYCLES_PER_ISSUE * len(b.instructions)
                                                       for b in program.blocks], dtype=np.float64)
    return cycles


def reads_clock(program) -> bool:
    """Whether an instruction of the program reads %clock, %clock64 or %clock_hi (kept on it)."""
    found = program.__dict__.get("_reads_clock")
    if found is None:
        found = program._reads_clock = any(getattr(op, "name", "") in CLOCK_REGISTERS
                                           for block in program.blocks for ins in block.instructions
                                           for op in ins.srcs)
    return found


LANES = np.arange(32, dtype=np.int64)
NOT_YET = object()          # a value run_batch works out when it first needs it
_EXITED_BYTE = np.array([EXITED], dtype=np.uint8).tobytes()    # (the status array is uint8)
WATCHDOG_LOOK_EVERY = 0.01   # wall seconds between the watchdog's looks at the CPU clock (a system call)
LOOP_CHUNK = 1024         # rounds the compiled loop runs between the watchdog's looks at the clock


def guard(ctx, watchdog: float, rounds_done: int):
    """Count the round; budgets, the watchdog and the livelock watch."""
    ctx.rounds += rounds_done
    if ctx.rounds > ctx.settings.max_rounds or ctx.issued > ctx.settings.max_instructions:
        raise runaway(ctx)
    if watchdog and time.perf_counter() >= ctx.watchdog_look:
        if ctx.cpu_seconds() > watchdog:
            raise runaway(ctx, watchdog)
        ctx.watchdog_look = time.perf_counter() + WATCHDOG_LOOK_EVERY
    if ctx.rounds < LIVELOCK_FIRST - 1 and getattr(ctx.model, "patience", 0) >= 0:
        ctx.changes_only = False            # (before the first watch window: watch_offset is -1 for both)
        return
    if rounds_done and watch_offset(ctx, ctx.rounds) >= 0:
        watch_for_livelock(ctx)
    # In the watch window only writes that change memory count as progress.
    ctx.changes_only = watch_offset(ctx, ctx.rounds + 1) > 0


def loop_limit(ctx) -> int:
    """Rounds the compiled loop may run from here: none that the livelock watch looks at,
    at most one past the round budget (which then stops the launch), LOOP_CHUNK at most."""
    following = ctx.rounds + 1
    if watch_offset(ctx, following) >= 0:
        return 0
    first = first_watch(ctx)
    next_watch = (first if following < first
                  else max(LIVELOCK_EVERY, -(-following // LIVELOCK_EVERY) * LIVELOCK_EVERY))
    return max(0, min(next_watch - following, ctx.settings.max_rounds + 1 - ctx.rounds, LOOP_CHUNK))


def issuing_groups(ctx, model, runnable, lanes) -> list:
    """(block id, thread slots, warps) per block issued this round, ascending; one when converged."""
    warp_pc, chosen = model.select(ctx, runnable)
    warps = np.flatnonzero(warp_pc != NO_PC)
    pcs = warp_pc[warps]
    if pcs.min() == pcs.max():
        per_block = (warps,)
    else:
        order = np.argsort(pcs, kind="stable")
        per_block = np.split(warps[order], np.flatnonzero(np.diff(pcs[order])) + 1)
    groups = []
    for ws in per_block:
        chosen_lanes = chosen[ws]
        slots = ws[:, None] * 32 + lanes
        groups.append((int(warp_pc[ws[0]]), slots.ravel() if chosen_lanes.all() else slots[chosen_lanes], ws))
    return groups


CONVERGED_UP_TO = 4096    # thread slots of a batch up to which a round always first looks for one converged group
LOOK_AGAIN_AFTER = 16     # rounds a larger batch waits after a look that found divergence


def converged_group(ctx, model, runnable) -> list | None:
    """The round's one group when every warp's runnable lanes are all at one block and the model
    says each warp issues them there (SchedulingModel.select_converged); None otherwise. A small
    kernel of a few blocks (an ElementwiseKernel's loop) issues converged most rounds. A batch over
    CONVERGED_UP_TO slots looks again only LOOK_AGAIN_AFTER rounds after a look that found its warps
    apart: a converged kernel (a matmul's rounds) keeps skipping the select passes, while a divergent
    one pays a sixteenth of the looks."""
    if type(model).select_converged is SchedulingModel.select_converged:
        return None                          # (a model that always selects pays no look)
    large = ctx.n > CONVERGED_UP_TO
    if large and ctx.rounds < ctx.next_converged_look:
        return None
    at = ctx.pc[runnable]
    gid = int(at.min())
    if (gid != at.max() or not runnable.reshape(-1, 32).any(axis=1).all()
            or not model.select_converged(ctx, gid)):
        if large:
            ctx.next_converged_look = ctx.rounds + LOOK_AGAIN_AFTER
        return None
    return [(gid, np.flatnonzero(runnable), _all_warps(ctx))]


def _all_warps(ctx) -> np.ndarray:
    """0..n_warps-1, read-only, cached per launch shape on the program."""
    cache = ctx.program.__dict__.setdefault("_all_warps", {})
    warps = cache.get(ctx.n_warps)
    if warps is None:
        warps = np.arange(ctx.n_warps, dtype=np.int64)
        warps.setflags(write=False)
        if len(cache) > 16:
            cache.clear()
        cache[ctx.n_warps] = warps
    return warps


def starting_group(ctx) -> tuple:
    """The first round's one group: every living thread slot of the batch at the kernel's entry
    block, and every warp (read-only arrays, cached per kernel and launch shape on the program)."""
    cache = ctx.program.__dict__.setdefault("_starting_groups", {})
    key = (ctx.kernel, ctx.block, ctx.n_ctas)
    group = cache.get(key)
    if group is None:
        slots = np.flatnonzero(ctx.exists)
        slots.setflags(write=False)
        if len(cache) > 16:
            cache.clear()
        group = cache[key] = ((int(ctx.pc[0]), slots, _all_warps(ctx)),)    # (slot 0 always lives)
    return group


def execute(ctx, gid, idx, warps=None):
    """Run one block for threads idx (whose warps, sorted, are `warps` if known)."""
    block = ctx.program.blocks[gid]
    if block.compiled is None:
        block.compiled = compile_block(ctx.program, block)
    if block.kind == "warp_sync":
        met = ctx.model.meet(ctx, block, idx)
        if met is None or not len(met):
            return
        if met is not idx:
            idx, warps = met, None
        for obs in ctx.warp_sync_observers:
            obs.warp_sync_met(ctx, block, idx)
    if ctx.engine == "numpy":
        block.compiled(ctx, idx)
    else:                                       # the compiled tier where it covers the block
        block_tier(ctx.program, block).run(ctx, idx)
    if warps is None:
        warps = np.unique(idx >> 5)
    ctx.issued += len(warps) * len(block.instructions)
    ctx.clocked += len(warps) * ctx.block_cycles[block.gid]
    ctx.thread_instructions += len(idx) * len(block.instructions)
    for obs in ctx.block_observers:
        obs.block_executed(ctx, block, idx, warps)


def release_barriers(ctx) -> bool:
    """Release every (CTA, barrier) whose expected threads have all arrived (semantics/barriers.py
    says which, for SASS's BAR too)."""
    waiting = np.flatnonzero(ctx.status == AT_BARRIER)
    if not len(waiting):
        return False
    live = np.bincount(ctx.cta[ctx.status != EXITED], minlength=ctx.n_ctas)
    keys = ctx.barrier_keys(waiting)
    member = barriers.release(keys, ctx.barrier_count[waiting], live, ctx.arrivals)
    if not member.any():
        return False
    members, member_keys = waiting[member], keys[member]
    for obs in ctx.barrier_observers:
        obs.barrier_released(ctx, members, member_keys)
    finish_barrier(ctx, members, member_keys)
    return True


def finish_barrier(ctx, members, keys):
    """Threads leave the barrier; bar.red writes the reduction over each CTA's barrier."""
    program = ctx.program
    pcs = ctx.pc[members]
    single = len(pcs) and pcs.min() == pcs.max()       # the usual case: one barrier instruction
    for gid in (pcs[:1] if single else np.unique(pcs)):
        at = slice(None) if single else pcs == gid
        group = members[at]
        block = program.blocks[int(gid)]
        ins = block.instructions[0]
        if "red" in ins.mods:
            value = reduce_barrier(ctx, ins, group, keys[at])
            dst = ins.dsts[0].name
            bits = 1 if block.function.regs[dst] == "pred" else 32
            ctx.reg(f"{block.function.name}::{dst}", bits)[group] = value
        ctx.pc[group] = block.next_gid
        ctx.status[group] = RUNNING
        if block.next_gid == -1:
            ctx.status[group] = EXITED


def wake_warp_syncs(ctx) -> bool:
    """Lanes waiting at a warp-sync whose partners exited: let them go (and report it)."""
    waiting = np.flatnonzero(ctx.status == AT_WARP_SYNC)
    if not len(waiting):
        return False
    progressed = False
    for gid in np.unique(ctx.pc[waiting]):
        idx = waiting[ctx.pc[waiting] == gid]
        before = ctx.issued
        ctx.status[idx] = RUNNING
        execute(ctx, int(gid), idx)
        progressed |= ctx.issued != before
    if not progressed:
        ctx.status[waiting[ctx.status[waiting] == RUNNING]] = AT_WARP_SYNC
    return progressed


def stuck_warps(ctx, limit: int = 8) -> str:
    """One line per group of a stuck warp: its lanes, where they are and why."""
    program = ctx.program
    lines = []
    alive = ctx.status != EXITED
    for w in np.unique(np.flatnonzero(alive) >> 5)[:limit]:
        slots = np.arange(w * 32, w * 32 + 32)
        slots = slots[alive[slots]]
        running = slots[ctx.status[slots] == RUNNING]
        first_pc = ctx.pc[running].min() if len(running) else -1
        for gid in np.unique(ctx.pc[slots]):
            group = slots[ctx.pc[slots] == gid]
            ins = program.blocks[int(gid)].instructions[0]
            status = int(ctx.status[group[0]])
            if status == RUNNING:
                state = "issuing" if gid == first_pc else "held until the lanes before it reach here"
            else:
                state = {AT_BARRIER: "waiting at a CTA barrier",
                         AT_WARP_SYNC: "waiting for lanes named in its .sync mask"}[status]
            where = ctx.where(int(group[0]))
            lanes = lanes_text(int(np.bitwise_or.reduce(np.uint64(1) << (group & 31).astype(np.uint64))))
            src = program.source_line(ins)
            lines.append(f"  block {where['block']} warp {int(ctx.warp_in_cta[group[0]])} lanes [{lanes}] "
                         f"{state}, at PTX line {ins.line}: {ins}" + (f"  ({src})" if src else ""))
    return "\n".join(lines)


def deadlock(ctx) -> DeadlockError:
    return DeadlockError("deadlock: no thread can make progress\n" + stuck_warps(ctx) + _apart_collectives(ctx),
                         kernel=ctx.kernel)


def _apart_collectives(ctx) -> str:
    """A note where a warp's lanes wait at `.sync` collectives of different kinds: they never meet
    (an H100 never finishes such a launch: validation/warp_sync_masks/sites_mixed.cu)."""
    waiting = np.flatnonzero(ctx.status == AT_WARP_SYNC)
    for w in np.unique(waiting >> 5):
        gids = np.unique(ctx.pc[waiting[(waiting >> 5) == w]])
        kinds = {collective_kind(ctx.program.blocks[int(g)]) for g in gids}
        if len(kinds) > 1:
            return ("\n  lanes of one warp wait at .sync collectives of different kinds, which never meet "
                    "(a GPU hangs there too)")
    return ""


def fingerprint(ctx) -> tuple:
    """Everything that decides what the batch does next (memory via its count of writes that
    changed it: an atomic that writes the value already there, or a failed CAS, is no progress)."""
    parts = [ctx.writes, ctx.pc.tobytes(), ctx.status.tobytes(), ctx.model.fingerprint(ctx)]
    parts += [ctx.regs[k].tobytes() for k in sorted(ctx.regs)]
    parts += [ctx.param_vars[k].tobytes() for k in sorted(ctx.param_vars)]
    # a recursion's calls: the return addresses, depths and saved frames, and local memory, which
    # two points of a recursion with the same registers differ in (fib(13) was stopped as a livelock)
    made = ctx.__dict__
    parts += [made[k].tobytes() for k in CALL_STATE if k in made]
    parts += [ctx.saved[k].tobytes() for k in sorted(ctx.saved)]
    return hash(tuple(parts))


CALL_STATE = ("call_stack", "call_depth", "stack_used", "local")       # (made on first use)


def watch_for_livelock(ctx):
    """A state seen before with no memory written since: the launch loops forever."""
    if watch_offset(ctx, ctx.rounds) == 0:
        ctx.seen_states = {}
    state = fingerprint(ctx)
    if state in ctx.seen_states:
        period = ctx.rounds - ctx.seen_states[state]
        raise livelock(ctx, period)
    ctx.seen_states[state] = ctx.rounds


def livelock(ctx, period: int) -> DeadlockError:
    alive = ctx.status != EXITED
    pcs = np.where(alive, ctx.pc, -1).reshape(-1, 32)
    divergent = ((pcs != pcs.max(axis=1)[:, None]) & (pcs >= 0)).any()
    message = (f"livelock: the launch repeats the same state every {period} scheduling rounds "
               f"and no thread writes memory, so it would never finish")
    if divergent and not ctx.model.independent_progress:
        message += ("\n  This is the pre-Volta hang: a group of lanes spins waiting for lanes of its "
                    "own warp that the SIMT reconvergence stack holds back, so on pre-Volta hardware "
                    "it would hang. Under independent thread scheduling (scheduling='its', Volta and "
                    "later) the waiting lanes get to run and it can complete.")
    total = ctx.grid[0] * ctx.grid[1] * ctx.grid[2]
    if int(ctx.cta_ids[-1]) + 1 < total:
        message += (f"\n  Blocks {int(ctx.cta_ids[-1]) + 1}..{total - 1} run in later batches and have "
                    f"not started: if this kernel waits for another block, let the whole grid run "
                    f"at once with warpsim.settings(batch_threads=...).")
    return DeadlockError(message + "\n" + stuck_warps(ctx), kernel=ctx.kernel)


def runaway(ctx, watchdog: float = 0.0) -> BudgetExceeded:
    if watchdog:
        why = (f"the launch used more than {watchdog:g} s of CPU time, the watchdog "
               f"({ctx.rounds} scheduling rounds, {ctx.issued} warp instructions; raise it with "
               f"warpsim.settings(watchdog_seconds=...) or, for a program, WARPSIM_WATCHDOG_SECONDS; "
               f"0 turns it off)")
    else:
        why = (f"the launch ran past its budget ({ctx.rounds} scheduling rounds, {ctx.issued} warp "
               f"instructions; raise it with warpsim.settings(max_rounds=...))")
    return BudgetExceeded(why + "; warps are at:\n" + stuck_warps(ctx), kernel=ctx.kernel)
