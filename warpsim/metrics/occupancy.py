"""Theoretical occupancy: how many blocks of a kernel fit on one SM, and why.

The arithmetic is the CUDA occupancy calculator's (cuda_occupancy.h):

- warps:     floor(max warps per SM / warps per block);
- blocks:    the per-SM block limit;
- registers: registers are given to warps in units of 256 and the register
             file is split between the SM's 4 sub-partitions, so a warp of a
             kernel using R registers per thread takes ceil(32 R, 256) of the
             sub-partition's 16384, and the limit is
             floor(16384 / that) * 4 / warps per block;
- shared:    per block, static + dynamic + the 1 KB the driver reserves on
             sm_80 and later, rounded up to the allocation unit, out of the
             shared-memory size the SM is configured with (the carveout).

The carveout is the driver's choice. Unless one is given, the one chosen is
the smallest that holds min(max blocks per SM, floor(65536 / (registers x
threads per block))) blocks, registers as ptxas reports them: the rule that
reproduced every carveout Nsight Compute reported for the validation kernels
on an H200 (driver 580, nine different configurations, see
validation/metrics_comparison.md); for other architectures it is an
assumption. The register count the occupancy uses is at least
`min_registers_per_thread`: on sm_90 Nsight Compute reported 16 registers per
thread for kernels ptxas compiled to 8 to 14, and its limits follow the 16.

`warpsim occupancy --block 256 --regs 32 --smem 4096 --arch sm_90` prints
the calculation (warpsim/cli/occupancy.py, its table from warpsim/report/occupancy.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

KB = 1024


@dataclass(frozen=True)
class Arch:
    name: str
    max_warps_per_sm: int
    max_blocks_per_sm: int
    shared_per_sm: int                 # the largest carveout, bytes
    max_shared_per_block: int          # with the opt-in attribute, bytes
    shared_allocation_unit: int        # bytes
    reserved_shared_per_block: int     # the driver's per-block reservation, bytes
    carveouts_kb: tuple                # shared-memory sizes an SM can be configured with
    registers_per_sm: int = 65536
    max_registers_per_block: int = 65536
    max_registers_per_thread: int = 255
    register_allocation_unit: int = 256    # registers, per warp
    sub_partitions: int = 4                # the register file is split between them
    max_threads_per_block: int = 1024
    default_shared_per_block: int = 48 * KB   # without the opt-in attribute
    min_registers_per_thread: int = 0         # what the driver gives at least (see module doc)

    @property
    def max_threads_per_sm(self) -> int:
        return self.max_warps_per_sm * 32


ARCHS = {
    "sm_70": Arch("sm_70", 64, 32, 96 * KB, 96 * KB, 256, 0, (0, 8, 16, 32, 64, 96)),
    "sm_75": Arch("sm_75", 32, 16, 64 * KB, 64 * KB, 256, 0, (32, 64)),
    "sm_80": Arch("sm_80", 64, 32, 164 * KB, 163 * KB, 128, KB, (0, 8, 16, 32, 64, 100, 132, 164)),
    "sm_86": Arch("sm_86", 48, 16, 100 * KB, 99 * KB, 128, KB, (0, 8, 16, 32, 64, 100)),
    "sm_89": Arch("sm_89", 48, 24, 100 * KB, 99 * KB, 128, KB, (0, 8, 16, 32, 64, 100)),
    "sm_90": Arch("sm_90", 64, 32, 228 * KB, 227 * KB, 128, KB,
                  (0, 8, 16, 32, 64, 100, 132, 164, 196, 228), min_registers_per_thread=16),
}


def get_arch(name: str) -> Arch:
    """sm_90, sm_90a, compute_90, 90 and 9.0 all name sm_90."""
    key = str(name).lower().strip()
    for prefix in ("sm_", "compute_"):
        if key.startswith(prefix):
            key = key[len(prefix):]
    key = key.replace(".", "").rstrip("af")
    arch = ARCHS.get(f"sm_{key}")
    if arch is None:
        raise ValueError(f"no occupancy figures for architecture '{name}' "
                         f"(known: {', '.join(ARCHS)})")
    return arch


@dataclass
class Occupancy:
    arch: str
    threads_per_block: int
    registers_per_thread: int          # what the kernel uses (before allocation granularity)
    shared_per_block: int              # static + dynamic bytes the kernel uses (before the reservation and granularity)
    warps_per_block: int
    registers_allocated_per_warp: int
    shared_allocated_per_block: int    # with the reservation, rounded to the unit
    shared_config: int                 # the carveout, bytes
    limit_warps: int
    limit_blocks: int
    limit_registers: int
    limit_shared_mem: int
    active_blocks: int
    active_warps: int
    max_warps: int
    limiters: list = field(default_factory=list)   # the limits that bind
    problems: list = field(default_factory=list)   # why a block does not fit at all

    @property
    def occupancy_pct(self) -> float:
        return 100.0 * self.active_warps / self.max_warps

    def as_dict(self) -> dict:
        d = asdict(self)
        d["occupancy_pct"] = self.occupancy_pct
        return d


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def register_limit(arch: Arch, registers: int, warps_per_block: int) -> tuple:
    """(blocks the register file holds, registers allocated per warp)."""
    per_warp = _round_up(max(registers, 0) * 32, arch.register_allocation_unit)
    if registers > arch.max_registers_per_thread or per_warp * warps_per_block > arch.max_registers_per_block:
        return 0, per_warp
    if per_warp == 0:
        return arch.max_blocks_per_sm, per_warp
    warps_per_partition = arch.registers_per_sm // arch.sub_partitions // per_warp
    return warps_per_partition * arch.sub_partitions // warps_per_block, per_warp


def shared_allocation(arch: Arch, shared: int) -> int:
    return _round_up(shared + arch.reserved_shared_per_block, arch.shared_allocation_unit)


def driver_carveout(arch: Arch, allocated: int, threads_per_block: int, registers: int) -> int:
    """The carveout the driver picks (bytes): the smallest holding as many blocks as the
    register file would, counted plainly (registers x threads, no allocation units)."""
    target = arch.max_blocks_per_sm
    if registers > 0:
        target = min(target, arch.registers_per_sm // (registers * max(threads_per_block, 1)))
    for kb in arch.carveouts_kb:
        if kb * KB >= allocated * target:
            return kb * KB
    return arch.carveouts_kb[-1] * KB


def occupancy(threads_per_block: int, registers_per_thread: int, shared_per_block: int = 0,
              arch="sm_90", carveout_kb: int | None = None) -> Occupancy:
    """Theoretical occupancy of a launch (see the module doc for the rules)."""
    a = arch if isinstance(arch, Arch) else get_arch(arch)
    problems = []
    if not 1 <= threads_per_block <= a.max_threads_per_block:
        problems.append(f"a block has 1 to {a.max_threads_per_block} threads, not {threads_per_block}")
    if registers_per_thread > a.max_registers_per_thread:
        problems.append(f"{registers_per_thread} registers per thread exceed the "
                        f"{a.max_registers_per_thread} an {a.name} thread can have")
    if shared_per_block > a.max_shared_per_block:
        problems.append(f"{shared_per_block} bytes of shared memory exceed the "
                        f"{a.max_shared_per_block} an {a.name} block can have")
    warps = max(1, -(-threads_per_block // 32))
    registers = max(registers_per_thread, a.min_registers_per_thread)
    limit_warps = a.max_warps_per_sm // warps
    limit_registers, per_warp = register_limit(a, registers, warps)
    if limit_registers == 0 and not problems:
        problems.append(f"{warps} warps x {per_warp} registers exceed the register file")
    allocated = shared_allocation(a, shared_per_block)
    if carveout_kb is None:
        config = driver_carveout(a, allocated, threads_per_block, registers_per_thread)
    else:
        if carveout_kb not in a.carveouts_kb:
            raise ValueError(f"{a.name} has carveouts of {', '.join(map(str, a.carveouts_kb))} KB, "
                             f"not {carveout_kb}")
        config = carveout_kb * KB
    limit_shared = config // allocated if allocated else a.max_blocks_per_sm
    if shared_per_block > a.max_shared_per_block:
        limit_shared = 0
    limits = {"warps": limit_warps, "blocks": a.max_blocks_per_sm,
              "registers": limit_registers, "shared_mem": limit_shared}
    active = 0 if problems else min(limits.values())
    # A carveout the driver chose to fit the other limits does not bind; the largest one, or one
    # the user fixed, does.
    chosen_to_fit = carveout_kb is None and config < a.carveouts_kb[-1] * KB
    if active == 0 and not problems and limit_shared == 0:
        problems.append(f"{allocated} bytes of shared memory per block do not fit the "
                        f"{config // KB} KB carveout")
    return Occupancy(a.name, threads_per_block, registers_per_thread, shared_per_block, warps,
                     per_warp, allocated, config, limit_warps, a.max_blocks_per_sm,
                     limit_registers, limit_shared, active, active * warps, a.max_warps_per_sm,
                     [name for name, v in limits.items()
                      if v == active and not (name == "shared_mem" and chosen_to_fit)], problems)


def co_resident_blocks(threads_per_block: int, registers_per_thread: int, shared_per_block: int,
                       arch, sms: int) -> int:
    """Blocks a GPU of `sms` SMs holds at once: the most a cooperative launch may have (a grid-wide
    sync waits for every block, so each must be resident; a larger grid is refused)."""
    return occupancy(threads_per_block, registers_per_thread, shared_per_block, arch).active_blocks * sms


# ---------------------------------------------------------------- in words

LIMIT_TITLES = {"warps": "warps per SM", "blocks": "blocks per SM",
                "registers": "registers", "shared_mem": "shared memory"}


def occupancy_summary(occ: Occupancy) -> str:
    text = (f"{occ.active_blocks} blocks = {occ.active_warps} of {occ.max_warps} warps per SM: "
            f"{occ.occupancy_pct:.1f}% theoretical occupancy, limited by "
            f"{', '.join(LIMIT_TITLES[n] for n in occ.limiters) or '-'}")
    return text + "".join(f"\n{p}" for p in occ.problems)
