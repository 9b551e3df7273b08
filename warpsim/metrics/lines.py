"""Per-source-line attribution.

Every PTX instruction carries the innermost source location of its `.loc`
(CUDA C++ through NVRTC and Numba kernels alike; an inlined function's lines
are its own, as in Nsight Compute's source page). The counters of each
executed instruction and memory access are added to that line, and
`worst_lines` names the lines that waste the most: idle lanes (divergence),
sectors beyond what the bytes need (coalescing) and bank conflicts. The
terminal's source view of them is warpsim.report.source_lines.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..ptx.sources import read_source

NO_LINE = "<no line info>"


@dataclass
class LineStats:
    file: str
    line: int
    inst: int = 0                  # warp-level instructions issued
    thread_inst: int = 0           # active lanes summed
    pred_on: int = 0
    branches: int = 0              # warp-level branches executed
    divergent: int = 0             # ... whose lanes split
    global_requests: int = 0
    global_sectors: int = 0
    global_ideal_sectors: int = 0  # what the bytes asked for would need, at best
    shared_requests: int = 0
    shared_wavefronts: int = 0
    shared_ideal_wavefronts: int = 0
    local_requests: int = 0
    local_sectors: int = 0
    ptx_lines: list = field(default_factory=list)

    @property
    def threads_per_inst(self) -> float:
        return self.thread_inst / self.inst if self.inst else 0.0

    @property
    def simt_efficiency_pct(self) -> float:
        return 100.0 * self.thread_inst / (32 * self.inst) if self.inst else 0.0

    @property
    def idle_lane_slots(self) -> int:
        return 32 * self.inst - self.thread_inst

    @property
    def sectors_per_request(self) -> float:
        return self.global_sectors / self.global_requests if self.global_requests else 0.0

    @property
    def excess_sectors(self) -> int:
        return max(0, self.global_sectors - self.global_ideal_sectors)

    @property
    def bank_conflicts(self) -> int:
        return self.shared_wavefronts - self.shared_ideal_wavefronts

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(threads_per_inst=self.threads_per_inst, simt_efficiency_pct=self.simt_efficiency_pct,
                 sectors_per_request=self.sectors_per_request, bank_conflicts=self.bank_conflicts)
        return d


def _where(program, ins) -> tuple:
    loc = ins.loc
    if loc is None:
        return NO_LINE, 0
    return program.module.files.get(loc.file, f"file{loc.file}"), loc.line


def line_table(counters) -> list:
    """LineStats of every source line that executed something, in file/line order."""
    program = counters.program
    rows: dict = {}

    def row(ins) -> LineStats:
        key = _where(program, ins)
        r = rows.get(key)
        if r is None:
            r = rows[key] = LineStats(*key)
        return r

    for _, _, ins, warps, threads, pred_on in counters.instruction_rows():
        r = row(ins)
        r.inst += warps
        r.thread_inst += threads
        r.pred_on += pred_on
        if ins.line not in r.ptx_lines:
            r.ptx_lines.append(ins.line)
    for _, ins, executions, divergent in counters.branch_rows():
        r = row(ins)
        r.branches += executions
        r.divergent += divergent
    for site in counters.sites.values():
        r = row(site.ins)
        if site.space == "global":
            r.global_requests += site.requests
            r.global_sectors += site.sectors
            r.global_ideal_sectors += site.ideal_sectors
        elif site.space == "shared":
            r.shared_requests += site.requests
            r.shared_wavefronts += site.wavefronts
            r.shared_ideal_wavefronts += site.ideal_wavefronts
        elif site.space == "local":
            r.local_requests += site.requests
            r.local_sectors += site.sectors
    return sorted(rows.values(), key=lambda r: (r.file == NO_LINE, r.file, r.line))


# ---------------------------------------------------------------- worst lines

WASTE = {
    "idle lanes": lambda r: r.idle_lane_slots,
    "excess sectors": lambda r: r.excess_sectors,
    "bank conflicts": lambda r: r.bank_conflicts,
    "divergent branches": lambda r: r.divergent,
}


def worst_lines(lines, share: float = 0.2) -> dict:
    """(file, line) -> reasons: the top line of each kind of waste, and any line with `share` of it."""
    flagged: dict = {}
    for reason, waste in WASTE.items():
        total = sum(waste(r) for r in lines)
        if total <= 0:
            continue
        top = max(lines, key=waste)
        for r in lines:
            amount = waste(r)
            if amount > 0 and (r is top or amount >= share * total):
                flagged.setdefault((r.file, r.line), []).append(reason)
    return flagged
