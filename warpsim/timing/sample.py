"""Running a sample of a launch's CTAs to learn what ran (the timing model's input).

A large grid is not run whole: `sampled_cta_ids` picks CTAs spread evenly
over it, the first and the last included (so a grid whose work grows with
the CTA index, such as sorted loop lengths, is seen at both ends; TBPoint-
and PKA-style sampling). The model then treats every CTA as its nearest
sampled one. `record_execution` runs those CTAs on the SASS executor when it
supports the kernel, else on the PTX machine, on the launch's real geometry
and arguments, and returns an Execution. It writes device memory as the
kernel does (only for the sampled CTAs).
"""

from __future__ import annotations

import numpy as np

from ..machine.events import LaunchObserver
from .execution import CtaWork, Execution, PtxRecorder, SassRecorder
from ..sass.executor.state import Group


UNEVEN = 0.25          # coefficient of variation of sampled CTAs' issues that makes a sample grow


def sampled_cta_ids(grid, max_ctas: int = 6) -> list:
    """Linear ids of CTAs spread over the grid (a CTA count or its three dimensions), the first
    included. A pick on the grid's last column, row or slice (of a dimension of several) moves to the
    one before: that is where a bounds guard leaves threads idle (n = 1,000,000 over CTAs of 256), and
    a sample stands for a sixth of the grid, where the edge is one CTA in thousands (1,000,000 was
    predicted 6% faster than 1,000,192, the same CTAs)."""
    gx, gy, gz = (int(grid), 1, 1) if np.ndim(grid) == 0 else _dim3(grid)
    n_ctas = gx * gy * gz
    if n_ctas <= max_ctas:
        return list(range(n_ctas))
    picks = np.round(np.linspace(0, n_ctas - 1, max_ctas)).astype(np.int64)
    coords = []
    for extent, place in ((gx, picks % gx), (gy, picks // gx % gy), (gz, picks // (gx * gy))):
        coords.append(np.where((place == extent - 1) & (extent > 1), extent - 2, place))
    picks = np.unique(coords[0] + gx * (coords[1] + gy * coords[2]))
    return [int(c) for c in picks]


def _dim3(v) -> tuple:
    v = tuple(v) if isinstance(v, (tuple, list)) else (int(v),)
    return v + (1,) * (3 - len(v))


def _touched_allocation_bytes(memory) -> int:
    """Bytes the kernel's data can lie in (the distinct bytes a launch reads cannot exceed them): the
    live allocations, and the host ranges registered for it (torch tensors, NumPy arrays)."""
    live = getattr(memory, "live", {}) or {}
    host = getattr(getattr(memory, "host", None), "ranges", {}) or {}
    return int(sum(live.values()) + sum(r.nbytes for r in host.values()))


class QuietSample(Exception):
    """A sample's batch ran `QuietWatch.limit` rounds since it last wrote device memory."""


class QuietWatch:
    """Stops a sample whose CTAs spin without writing device memory: a CTA waiting on a flag that a
    CTA outside the sample sets (a decoupled look-back scan) would spin to the round budget."""

    def __init__(self, limit: int):
        self.limit, self.last_write = limit, 0

    def sass_memory_access(self, st, ins, space, kind, idx, addrs, size):
        if kind != "ld" and space not in ("shared", "local"):
            self.last_write = st.rounds

    def sass_block_issued(self, st, block, g, pred_on, next_pc):
        if st.rounds < self.last_write:         # a new batch counts its rounds from 0
            self.last_write = 0
        if st.rounds - self.last_write > self.limit:
            raise QuietSample(f"the sampled CTAs ran {self.limit:,} rounds without writing device memory")


def run_sass_sample(loaded_module, kernel: str, grid, block, params: bytes, shared_mem: int, ctas: list,
                    memory=None, quiet_rounds: int | None = None, uneven_up_to: int = 0):
    """Execution from the SASS executor on CTAs `ctas` (raises when the executor lacks the kernel),
    on `memory` (default: the device's own, which the CTAs then write). quiet_rounds: raise
    QuietSample when a batch runs that many rounds since its last write to device memory.
    uneven_up_to: where the CTAs' issued instructions differ by more than UNEVEN (coefficient of
    variation), the CTAs of a spread of that many over the grid are added, so that a grid whose work varies
    with place (an escape-time loop over an image) is costed from more than a few of its CTAs."""
    from ..sass import sass_of
    from ..sass.executor import load_program
    from ..sass.executor.engine import run_batch
    from ..sass.executor.launch import MIN_LOCAL, constant_banks, place_user_constants
    from ..sass.executor.state import SassState
    grid, block = _dim3(grid), _dim3(block)
    module = sass_of(loaded_module)
    program, image = load_program(module, kernel)
    local_size = max(MIN_LOCAL, (image.stack_bytes + 15) // 16 * 16)
    constants = {}
    addresses = getattr(getattr(loaded_module, "program", None), "global_addresses", {})
    memory = loaded_module.device.memory if memory is None else memory
    for name, (_, _, length) in image.constant_symbols.items():
        if name in addresses:
            constants[name] = memory.read_bytes(addresses[name], length).tobytes()
    banks = constant_banks(image, grid, block, bytes(params), local_size, constants, addresses=addresses)
    shared_size = (image.static_shared + int(shared_mem) + 16 + 15) // 16 * 16     # the SASS's static bytes:
    #                                             ptxas pads them to the alignment of the dynamic ones
    threads = block[0] * block[1] * block[2]
    rec = SassRecorder(program, -(-threads // 32))
    per_batch = max(1, (1 << 15) // (rec.warps_per_cta * 32))

    def run(cta_ids):
        for first in range(0, len(cta_ids), per_batch):
            ids = np.asarray(cta_ids[first:first + per_batch], dtype=np.int64)
            st = SassState(program, grid, block, ids, banks, shared_size, local_size, memory)
            st.block_observers, st.memory_observers = [rec], [rec]
            if quiet_rounds:
                watch = QuietWatch(quiet_rounds)
                st.block_observers, st.memory_observers = [rec, watch], [rec, watch]
            run_batch(st, 50_000_000)
    placed = place_user_constants(program, banks, memory)
    try:
        run(ctas)
        n_ctas = grid[0] * grid[1] * grid[2]
        work = np.array([rec.counts[c].sum() for c in sorted(rec.counts)])
        if uneven_up_to > len(ctas) and n_ctas > len(ctas) and work.mean() > 0 and work.std() / work.mean() > UNEVEN:
            run([c for c in sampled_cta_ids(_dim3(grid), uneven_up_to) if c not in rec.counts])
    finally:
        if placed is not None:
            memory.free(placed)
    read, written = rec.finish_memory()
    fn = module.kernel(kernel)
    order = sorted(rec.counts)
    return Execution(fn, grid, block, order, [rec.counts[c] for c in order], [rec.lanes[c] for c in order],
                     rec.memory, read, written, _touched_allocation_bytes(memory), source="sass",
                     split_share=rec.split_share(), slow_resume_share=rec.slow_resume_share())


def run_ptx_sample(loaded_module, kernel: str, grid, block, params: bytes, shared_mem: int, ctas: list,
                   note: str = ""):
    """Execution from the PTX machine on CTAs `ctas`, its counts mapped to the SASS by PTX line."""
    from ..sass import sass_of
    grid, block = _dim3(grid), _dim3(block)
    fn = sass_of(loaded_module).kernel(kernel)
    threads = block[0] * block[1] * block[2]
    rec = PtxRecorder(loaded_module.program, fn, -(-threads // 32))
    runs = _ranges(ctas)
    for first, stop in runs:
        loaded_module.launch(kernel, grid, block, bytes(params), shared_mem=int(shared_mem),
                             observers=(rec,), cta_range=(first, stop))
    rec.to_sass_counts()
    read, written = rec.finish_memory()
    order = sorted(rec.counts)
    ex = Execution(fn, grid, block, order, [rec.counts[c] for c in order], [rec.lanes[c] for c in order],
                   rec.memory, read, written, _touched_allocation_bytes(loaded_module.device.memory),
                   source="ptx")
    if note:
        ex.notes.append(note)
    return ex


def _ranges(ctas: list) -> list:
    out = []
    for c in sorted(ctas):
        if out and out[-1][1] == c:
            out[-1][1] = c + 1
        else:
            out.append([c, c + 1])
    return [tuple(r) for r in out]


def record_execution(loaded_module, kernel: str, grid, block, params: bytes, shared_mem: int = 0,
                     max_ctas: int = 6, prefer: str = "sass"):
    """Execution of a sample of the launch's CTAs: SASS executor first, PTX machine when it cannot."""
    g = _dim3(grid)
    ctas = sampled_cta_ids(g, max_ctas)
    if prefer == "sass":
        from ..errors import WarpsimError
        try:
            return run_sass_sample(loaded_module, kernel, grid, block, params, shared_mem, ctas)
        except WarpsimError as exc:
            if getattr(loaded_module, "sass_only", False):
                raise                   # a cubin without PTX: there is no other way to run it
            note = f"SASS executor not used: {str(exc).splitlines()[0][:160]}"
        return run_ptx_sample(loaded_module, kernel, grid, block, params, shared_mem, ctas, note)
    return run_ptx_sample(loaded_module, kernel, grid, block, params, shared_mem, ctas)


def warps_of_slots(wanted: np.ndarray, warps_per_cta: int) -> np.ndarray:
    """The batch warps of the CTA slots `wanted` marks, in order."""
    return (np.flatnonzero(wanted)[:, None] * warps_per_cta + np.arange(warps_per_cta)).ravel()


def log_rows(warps: np.ndarray, n_warps: int):
    """A round loop's log rows for `warps` (batch warp -> row, -1: none), or None where there are none."""
    if not len(warps):
        return None
    rows = np.full(n_warps, -1, dtype=np.int64)
    rows[warps] = np.arange(len(warps))
    return rows


class LaunchTimingRecorder(LaunchObserver):
    """Observer of a launch's PTX run that records only a sample of its CTAs, for the model.

    The profiler adds one to every launch when a GPU is chosen (settings gpu); `timing()` then
    predicts from what those CTAs did, without running anything again.
    """

    def __init__(self, loaded_module, kernel: str, grid, block, dynamic_shared: int, gpu: str,
                 max_ctas: int = 6):
        from ..sass import sass_of
        if getattr(loaded_module, "sass_only", False):     # sass/loaded.py: no PTX run to record
            from ..errors import WarpsimError
            raise WarpsimError(f"kernel '{kernel}' has only SASS (no PTX), and the timing model samples "
                               "a PTX run")
        warps = _sample(self, loaded_module, kernel, grid, block, dynamic_shared, gpu, max_ctas)
        self.function = sass_of(loaded_module).kernel(kernel)
        self._batch = None
        self.recorder = PtxRecorder(loaded_module.program, self.function, warps)
        self.work = CtaWork(len(self._wanted), warps)

    def _wanted_slots(self, ctx) -> np.ndarray:
        """Which CTA slots of the batch are sampled (worked out once a batch: most batches have none)."""
        if self._batch is None or self._batch[0] is not ctx.cta_ids:
            self._batch = (ctx.cta_ids, self._wanted[ctx.cta_ids])
        return self._batch[1]

    def _keep(self, ctx, idx):
        wanted = self._wanted_slots(ctx)
        if not wanted.any():
            return idx[:0], None
        keep = wanted[(idx >> 5) // self.recorder.warps_per_cta]
        return idx if keep.all() else idx[keep], keep

    def block_executed(self, ctx, block, idx, warps):
        self.work.block_executed(ctx, block, idx, warps)
        idx, _ = self._keep(ctx, idx)
        if len(idx):
            self.recorder.block_executed(ctx, block, idx, warps)

    def logged_warps(self, ctx):
        """For the compiled round loop: the sampled CTAs' warps of this batch get rows of its log (their
        every issue, in order), or None where the batch holds none of them."""
        return log_rows(self._logged_warps(ctx), ctx.n_warps)

    def _logged_warps(self, ctx) -> np.ndarray:
        return warps_of_slots(self._wanted_slots(ctx), self.recorder.warps_per_cta)

    def compiled_rounds(self, ctx, record):
        """What the compiled round loop ran: every CTA's work, and the sampled warps' blocks from its log."""
        self.work.compiled_rounds(ctx, record)
        warps = self._logged_warps(ctx)
        if len(warps):
            self.recorder.logged_issues(ctx, record, warps)

    def memory_access(self, ctx, site, space, kind, idx, addrs, size, count):
        kept, keep = self._keep(ctx, idx)
        if len(kept):
            self.recorder.memory_access(ctx, site, space, kind, kept, addrs if kept is idx else addrs[keep],
                                        size, count)

    def timing(self, registers: int | None = None, l2_since: float | None = None):
        self.recorder.to_sass_counts()
        return _predict_sample(self, "ptx", registers, l2_since)


def _sample(sampler, loaded_module, kernel: str, grid, block, dynamic_shared: int, gpu: str, max_ctas: int) -> int:
    """What both sampling recorders keep of a launch: its geometry, the CTAs sampled (and a mask of
    them), the bytes its data can lie in (read now: host ranges are registered only while it runs).
    Returns the warps per CTA."""
    sampler.loaded_module, sampler.kernel, sampler.gpu = loaded_module, kernel, gpu
    sampler.grid, sampler.block = _dim3(grid), _dim3(block)
    sampler.dynamic_shared = int(dynamic_shared)
    sampler.allocation_bytes = _touched_allocation_bytes(loaded_module.device.memory)
    n = sampler.grid[0] * sampler.grid[1] * sampler.grid[2]
    sampler.ctas = sampled_cta_ids(sampler.grid, max_ctas)
    sampler._wanted = np.zeros(n, dtype=bool)
    sampler._wanted[sampler.ctas] = True
    return -(-(sampler.block[0] * sampler.block[1] * sampler.block[2]) // 32)


def _predict_sample(sampler, source: str, registers: int | None, l2_since: float | None = None):
    """The model's prediction from the CTAs a sampling recorder kept (either executor's run)."""
    rec = sampler.recorder
    read, written = rec.finish_memory()
    order = sorted(rec.counts)
    loaded = sampler.loaded_module
    ex = Execution(sampler.function, sampler.grid, sampler.block, order, [rec.counts[c] for c in order],
                   [rec.lanes[c] for c in order], rec.memory, read, written, sampler.allocation_bytes,
                   source=source, split_share=rec.split_share(), slow_resume_share=rec.slow_resume_share(),
                   **sampler.work.counted())
    return predict_sampled(ex, loaded, sampler.kernel, sampler.dynamic_shared, sampler.gpu, registers, l2_since)


def predict_sampled(ex, loaded_module, kernel: str, dynamic_shared: int, gpu, registers: int | None = None,
                    l2_since: float | None = None):
    """The model's prediction of a sampled Execution of `kernel`: its registers (ptxas's unless
    given) and its static shared memory beside the launch's dynamic shared memory."""
    from .registers import kernel_registers
    from .model import predict_execution
    regs = registers or kernel_registers(loaded_module, kernel)
    static = loaded_module.program.kernel_static_shared.get(kernel, 0)
    return predict_execution(ex, gpu, regs, static + int(dynamic_shared), l2_since=l2_since)


class SassTimingRecorder(LaunchObserver):
    """Observer of a launch's SASS run (alone, in place of its PTX run: sass/alone.py) that records
    only a sample of its CTAs, for the model; the SASS twin of LaunchTimingRecorder."""

    def __init__(self, loaded_module, kernel: str, grid, block, dynamic_shared: int, gpu: str,
                 max_ctas: int = 6):
        from ..sass import sass_of
        from ..sass.executor import load_program
        module = sass_of(loaded_module)
        program, _ = load_program(module, kernel)
        warps = _sample(self, loaded_module, kernel, grid, block, dynamic_shared, gpu, max_ctas)
        self.function = module.kernel(kernel)
        self._slots = None
        self.recorder = SassRecorder(program, warps)
        self.recorder.counts_splits = False     # every warp's, as the round loop's record counts them
        self.work = CtaWork(len(self._wanted), warps, len(self.function.instructions))

    def sass_batch_started(self, st) -> None:
        wanted = self._wanted[st.cta_ids]
        self._slots = wanted if wanted.any() else None
        slots = np.flatnonzero(wanted)
        self.recorder.start_batch(st, slots)
        lanes = 32 * self.recorder.warps_per_cta        # the sampled CTA slots' lanes: [start, end) each
        self._lane_ranges = slots[:, None] * lanes + np.array([0, lanes])

    def _kept(self, idx):
        keep = self._slots[(idx >> 5) // self.recorder.warps_per_cta]
        return None if keep.all() else keep

    def _kept_ascending(self, idx):
        """_kept of ascending lanes (an issued group's) from where the sampled CTAs' lane ranges fall
        in them: a few binary searches, not a look-up per lane."""
        bounds = np.searchsorted(idx, self._lane_ranges)
        if int((bounds[:, 1] - bounds[:, 0]).sum()) == len(idx):
            return None
        keep = np.zeros(len(idx), dtype=bool)
        for start, end in bounds:
            keep[start:end] = True
        return keep

    def sass_block_issued(self, st, block, g, pred_on, next_pc):
        self.work.sass_block_issued(st, block, g, pred_on, next_pc)
        if self._slots is None:
            return
        self.recorder.count_splits(st, block, g, next_pc)
        keep = self._kept_ascending(g.idx)
        if keep is None:
            self.recorder.sass_block_issued(st, block, g, pred_on, next_pc)
        elif keep.any():
            self.recorder.sass_block_issued(st, block, Group(g.idx[keep]), pred_on, next_pc[keep])

    def sass_logged_warps(self, st):
        """For the SASS round loop: the sampled CTAs' warps of this batch get rows of its log, or None."""
        return None if self._slots is None else log_rows(self._sampled_warps(), st.n_warps)

    def _sampled_warps(self) -> np.ndarray:
        return warps_of_slots(self._slots, self.recorder.warps_per_cta)

    def sass_compiled_rounds(self, st, record):
        """What the SASS round loop ran: every CTA's work, and the sampled warps' issues from its log."""
        self.work.sass_compiled_rounds(st, record)
        if self._slots is not None:
            self.recorder.logged_rounds(st, record, self._sampled_warps())

    def sass_memory_access(self, st, ins, space, kind, idx, addrs, size):
        if self._slots is None:
            return
        keep = self._kept(idx)
        if keep is None:
            self.recorder.sass_memory_access(st, ins, space, kind, idx, addrs, size)
        elif keep.any():
            self.recorder.sass_memory_access(st, ins, space, kind, idx[keep], addrs[keep], size)

    def timing(self, registers: int | None = None, l2_since: float | None = None):
        return _predict_sample(self, "sass", registers, l2_since)
