"""sm_90's asynchronous pipeline: mbarriers (SYNCS.*), ELECT, TMA and bulk copies (UTMALDG/UTMASTG/UBLKCP),
setmaxnreg.

Read from nvdisasm's listings of ptxas 13.5's code for Triton's TMA matmuls:

- `SYNCS.EXCH.64 URZ, [URa+off], URb` is how ptxas writes mbarrier.init's word:
  the GPU's encoding of `count` expected arrivals, (2^20 - count) << 1 in the low
  word and << 11 in the high word. The executor keeps its mbarriers in
  semantics.mbarrier's encoding, as the PTX machine does (shared memory is not
  compared between the runs), so the exchange is decoded to the count and
  initializes the word; any other value is refused by name when it runs.
- `SYNCS.ARRIVE.TRANS64 RZ, [bar], Rb`: mbarrier.arrive.expect_tx (one arrival
  after raising the transaction count by Rb bytes); `.ART0`: Rb arrivals, no
  transaction bytes (mbarrier.arrive with a count); `.A1T0`: one arrival. Each
  guard-true lane arrives, as each PTX thread does. `.A0TR`: no arrival, Rb
  transaction bytes expected (mbarrier.expect_tx); `.A0TX`: Rb bytes complete
  (mbarrier.complete_tx); `.OPTOUT.A1T0`: mbarrier.arrive_drop (the arrival
  also lowers the expected count of later phases).
- `ARRIVES.LDGSTSBAR.64.ARVCNT [bar]`: cp.async.mbarrier.arrive.noinc, an
  arrival once the lane's cp.async copies (LDGSTS, complete at issue) are done:
  now. Without .noinc ptxas first raises the transaction count by one
  (`SYNCS.ARRIVE.TRANS64.RED.A0T1`) and `ARRIVES.LDGSTSBAR.64.TRANSCNT` completes
  that one: no net arrival, as PTX says. `.RED` forms take a
  shared::cluster address, which may name another CTA's mbarrier
  (mbarrier.arrive.release.cluster.shared::cluster). A destination pair Rd
  (mbarrier.arrive's state) gets the token, the phase arrived in at bit 63:
  ptxas hands its high word to SYNCS.PHASECHK, whose parity is bit 31.
- `SYNCS.PHASECHK.TRANS64{.TRYWAIT} Pd, [bar], Rb`: mbarrier.try_wait.parity /
  test_wait.parity: Pd = the phase of the parity in Rb's bit 31 has completed
  (ptxas shifts the PTX parity there, `SHF.L.U32 Rb, Rp, 0x1f`, and loops on Pd).
- `SYNCS.CCTL.IV [bar]`: mbarrier.inval.
- `ELECT Pd, URd, PT`: elect.sync with every lane named: the lowest lane of the
  warp that issues it is the leader (Pd true there; URd its lane number).
- `UTMALDG.nD [URa], [URb]`: cp.async.bulk.tensor into shared memory: URa the
  shared destination, URa+1 the mbarrier, URa+2.. the coordinates (innermost
  first); URb, URb+1 the tensor map's address. `UTMASTG.nD [URa], [URb]` stores
  a box: URa the shared source, URa+1.. the coordinates. One copy per warp that
  issues it (the uniform datapath). The box, its swizzle and out-of-bounds fill
  are semantics.tensor_maps', which the PTX machine's cp.async.bulk.tensor uses;
  a copy completes when it issues, so it completes its transaction bytes on the
  mbarrier at once and `UTMACMDFLUSH` (commit_group) and the waits after it
  have nothing left. `UTMACCTL` (tensormap cache invalidate / prefetch) has no
  cache to act on.
- `UBLKCP.S.G [URa], [URb], URc`: cp.async.bulk.shared::cluster.global: URc's
  low 16 bits bytes / 16 (ptxas shifts the byte count right by 4), from the
  global address URb, URb+1 to the shared address URa, completing those bytes on
  the mbarrier at URa+1; `.S.S`: the same from shared::cta memory at URb (a
  32-bit address), into a CTA of the cluster (the rank bits of URa);
  `.G.S [URa], [URb], URc`: cp.async.bulk.global.shared::cta (bulk_group), from
  shared URb to global URa, URa+1. One copy per warp that issues it, as the
  TMA copies, complete at issue (ptxas issues it in an ELECT loop over the
  lanes that asked, closed by BRA.U.ANY).
- Tensor maps passed as kernel parameters: ptxas adds the parameter's offset to
  the parameter area's generic address, c[0x0][0x198] (launch.PARAM_WINDOW);
  warpsim's parameter space has no generic window (cvta.param keeps offsets in
  the PTX machine too), so an address below the heap is an offset from the
  first parameter, read from constant bank 0.
- `USETMAXREG.TRY_ALLOC / .DEALLOC .CTAPOOL`: setmaxnreg. The executor's
  register file already holds every register, so an allocation always succeeds
  (UPd true) and a release changes nothing.
"""

from __future__ import annotations

import numpy as np

from ...machine.memory import GLOBAL_BASE
from ...semantics import mbarrier as words
from ...semantics import warp as lanes
from ...semantics.tensor_maps import box_addresses, decode, out_of_bounds_fill, problem
from .access import Space, address_reader, resolve
from .cubin_info import PARAM_BASE
from .launch import PARAM_WINDOW
from .memory import notify
from .errors import SassExecutionError, where
from .operands import U32, U64, dest, pred_dest, source
from .state import Group
from .table import Step, Unsupported, semantics

INIT_FIELD = (1 << 20) - 1
PARITY_BIT = 31                 # where SYNCS.PHASECHK reads the phase parity it waits for


def _barrier_words(st, ins, g, addrs, space_name: str = "shared"):
    """(uint64 view of shared memory, word index per lane) of the mbarriers at addrs (space 'cluster':
    a shared::cluster address, which may name another CTA of the cluster)."""
    space = resolve(st, ins, g, space_name, addrs, 8)[0][1]
    return st.shared.view(np.uint64), space.offsets // 8


def _init_count(st, ins, value: np.ndarray) -> np.ndarray:
    """The arrival count of mbarrier.init's word in the GPU's encoding (see the module docstring)."""
    low = (value >> U64(1)) & U64(INIT_FIELD)
    high = (value >> U64(43)) & U64(INIT_FIELD)
    if np.any(low != high) or np.any((value & ~((U64(INIT_FIELD) << U64(1)) | (U64(INIT_FIELD) << U64(43)))) != 0):
        raise SassExecutionError(f"{where(ins)}: SYNCS.EXCH.64 writes 0x{int(value[0]):016x}, which is not an "
                                 f"mbarrier.init word (the executor runs SYNCS.EXCH only as ptxas's init)")
    return (U64(1 << 20) - low) & U64(INIT_FIELD)


@semantics("SYNCS", family="async", pipe="shared", mods=("EXCH", "64", "ARRIVE", "TRANS64", "ART0", "A1T0",
                                                       "A0TR", "A0TX", "A0T1", "RED", "OPTOUT", "PHASECHK", "TRYWAIT", "CCTL",
                                                       "IV"),
           doc="mbarriers: EXCH.64 (ptxas's init), ARRIVE.TRANS64 (+ .ART0 count, .A1T0 one, .A0TR/.A0TX expect/complete-tx; "
               "plain: one and expect-tx bytes; .RED: a shared::cluster address), PHASECHK.TRANS64(.TRYWAIT) "
               "(parity wait), CCTL.IV (inval); semantics.mbarrier's words")
def syncs(ins):
    mods = set(ins.mods)
    ops = [op for op in ins.operands]
    if "EXCH" in mods:
        if mods != {"EXCH", "64"} or len(ops) != 3 or ops[0].kind != "ureg" or ops[0].number is not None:
            raise Unsupported("SYNCS.EXCH form")
        read_address, value = address_reader(ops[1], False), source(ops[2], 64)

        def run(st, g):
            view, slot = _barrier_words(st, ins, g, read_address(st, g))
            words.init(view, slot, _init_count(st, ins, np.asarray(value(st, g), dtype=U64)))
        return Step(ins, run, memory=("shared", "atom", 8))
    if "ARRIVE" in mods:
        if not mods <= {"ARRIVE", "TRANS64", "ART0", "A1T0", "A0TR", "A0TX", "A0T1", "RED", "OPTOUT"} or "TRANS64" not in mods \
                or len(ops) != 3 or ops[0].kind != "reg" or "RED" in mods and ops[0].number is not None:
            raise Unsupported("SYNCS.ARRIVE form")
        read_address, operand = address_reader(ops[1], False), source(ops[2])
        write_token = dest(ops[0], 64) if ops[0].number is not None else None
        space = "cluster" if "RED" in mods else "shared"      # .RED: a shared::cluster address, maybe remote

        def run(st, g):
            view, slot = _barrier_words(st, ins, g, read_address(st, g), space)
            b = np.broadcast_to(np.asarray(operand(st, g), dtype=np.int64), (g.n,))
            if "A0TR" in mods or "A0TX" in mods:         # expect_tx / complete_tx: bytes, no arrival
                words.transact(view, slot, b if "A0TR" in mods else -b)
                tokens = None
            elif "A0T1" in mods:                          # one transaction ARRIVES.LDGSTSBAR.TRANSCNT completes
                words.transact(view, slot, 1)
                tokens = None
            elif "ART0" in mods:
                tokens = words.arrive(view, slot, b)
            elif "A1T0" in mods:
                tokens = words.arrive(view, slot, 1, drop="OPTOUT" in mods)
            else:
                tokens = words.arrive(view, slot, 1, tx=b)
            if write_token is not None:
                write_token(st, g, tokens)
        return Step(ins, run, memory=("shared", "atom", 8))
    if "PHASECHK" in mods:
        if not mods <= {"PHASECHK", "TRANS64", "TRYWAIT"} or len(ops) != 3 or ops[0].kind != "pred":
            raise Unsupported("SYNCS.PHASECHK form")
        write, read_address, parity = pred_dest(ops[0]), address_reader(ops[1], False), source(ops[2])

        def run(st, g):
            view, slot = _barrier_words(st, ins, g, read_address(st, g))
            wanted = np.asarray(parity(st, g), dtype=U64) >> U64(PARITY_BIT)
            write(st, g, words.phase_done(view, slot, wanted, True))
        return Step(ins, run, memory=("shared", "ld", 8))
    if mods == {"CCTL", "IV"} and len(ops) == 1:
        read_address = address_reader(ops[0], False)

        def run(st, g):
            words.invalidate(*_barrier_words(st, ins, g, read_address(st, g)))
        return Step(ins, run, memory=("shared", "st", 8))
    raise Unsupported("SYNCS form")


@semantics("ARRIVES", family="async", pipe="shared", mods=("LDGSTSBAR", "64", "ARVCNT", "TRANSCNT"),
           doc="cp.async.mbarrier.arrive: .ARVCNT one arrival (.noinc), .TRANSCNT one transaction completed, "
               "each lane's copies being done at issue")
def arrives(ins):
    mods = set(ins.mods)
    if not {"LDGSTSBAR", "64"} <= mods or len(mods & {"ARVCNT", "TRANSCNT"}) != 1 or len(ins.operands) != 1:
        raise Unsupported("ARRIVES form")
    read_address = address_reader(ins.operands[0], False)

    def run(st, g):
        view, slot = _barrier_words(st, ins, g, read_address(st, g))
        if "ARVCNT" in mods:
            words.arrive(view, slot, 1)
        else:
            words.transact(view, slot, -1)
    return Step(ins, run, memory=("shared", "atom", 8))


@semantics("ELECT", family="async", pipe="alu", warp_level=True,
           doc="elect.sync over every lane: the warp's lowest issuing lane is the leader (P), its lane number (UR)")
def elect(ins):
    ops = ins.operands
    if len(ops) != 3 or ops[0].kind != "pred" or ops[1].kind != "ureg" or ops[2].kind != "pred" \
            or ops[2].number is not None or ops[2].invert:
        raise Unsupported("ELECT form")
    write_p, write_ur = pred_dest(ops[0]), dest(ops[1])

    def run(st, g):
        leader_lane, is_leader = lanes.elect(g.idx)
        write_p(st, g, is_leader)
        write_ur(st, g, leader_lane)
    return Step(ins, run)


# ------------------------------------------------------------ TMA

# The copies the TMA unit makes. Their global accesses reach memory observers (the timing model's L2
# and HBM traffic, a sample's writes) but are no LSU requests: Nsight Compute's l1tex counters leave
# them out, and so do warpsim's (metrics.counters).
TMA_UNIT = ("UTMALDG", "UTMASTG", "UBLKCP")

def _uniform(st, slots, row: int) -> np.ndarray:
    return st.UR[row][slots].astype(np.int64)


def _tensor_map(st, ins, slot: int, address: int):
    """The tensor map at a parameter offset (constant bank 0) or a global address (see the docstring)."""
    if address < GLOBAL_BASE:                    # sm_90's parameter area, where TMA is
        at = PARAM_BASE - int(st.banks[0][PARAM_WINDOW:PARAM_WINDOW + 8].view(np.int64)[0]) + address
        raw = st.banks[0][at:at + 128]
    else:
        space = resolve(st, ins, Group(np.array([slot])), "global", np.array([address], dtype=U64), 16)[0][1]
        raw = space.array[space.offsets[0]:space.offsets[0] + 128]
    why = "it is not 128 bytes of memory" if len(raw) != 128 else problem(record := decode(bytes(raw)))
    if why:
        raise SassExecutionError(f"{where(ins)}: the tensor map at 0x{address:x}: {why}")
    return record


def _tma(ins):
    rank = next((int(m[0]) for m in ins.mods if len(m) == 2 and m[1] == "D" and m[0] in "12345"), None)
    ops = ins.operands
    if rank is None or set(ins.mods) != {f"{rank}D"} or len(ops) != 2 or any(op.kind != "mem" for op in ops) \
            or any(len(op.parts) != 1 or op.parts[0].kind != "ureg" or op.offset for op in ops):
        raise Unsupported(f"{ins.opcode} form")
    return rank, ops[0].parts[0].number, ops[1].parts[0].number


def _copy_box(st, ins, g, rank: int, box_row: int, map_row: int, into_shared: bool) -> None:
    firsts = g.warp_runs()[1]
    slots = g.idx[firsts]
    maps = _uniform(st, slots, map_row) | (_uniform(st, slots, map_row + 1) << 32)
    shared_row = box_row
    first_coord = box_row + (2 if into_shared else 1)
    for k, slot in enumerate(slots):
        record = _tensor_map(st, ins, int(slot), int(maps[k]))
        esize = int(record["element_bytes"])
        smem = int(st.UR[shared_row][slot])
        coords = [int(np.int32(st.UR[first_coord + d][slot])) for d in range(rank)]
        if rank != int(record["rank"]):
            raise SassExecutionError(f"{where(ins)}: a {rank}D copy through a rank-{int(record['rank'])} tensor map")
        if smem % 128:
            raise SassExecutionError(f"{where(ins)}: a tensor copy's shared address 0x{smem:x} is not "
                                     f"128-byte aligned")
        global_at, inside, shared_at = box_addresses(record, coords, smem)
        one = Group(np.full(len(inside), slot))
        shared = resolve(st, ins, one, "shared", shared_at.astype(U64), esize)[0][1]
        inner = Group(np.full(int(inside.sum()), slot))
        if into_shared:
            data = np.zeros(len(inside), dtype=np.dtype(f"u{esize}"))
            data[:] = out_of_bounds_fill(record)
            raw = data.view(np.uint8).reshape(len(inside), esize)
            if inside.any():
                src = resolve(st, ins, inner, "global", global_at[inside].astype(U64), esize)[0][1]
                raw[inside] = src.gather(esize)
                notify(st, ins, "global", "ld", inner.idx, global_at[inside].astype(U64), esize)
            shared.scatter(raw)
            bar = int(st.UR[box_row + 1][slot])
            view, bar_slot = _barrier_words(st, ins, Group(np.array([slot])), np.array([bar], dtype=U64))
            words.transact(view, bar_slot, -len(inside) * esize)
        elif inside.any():
            dst = resolve(st, ins, inner, "global", global_at[inside].astype(U64), esize)[0][1]
            dst.scatter(Space(shared.array, shared.offsets[inside]).gather(esize))
            notify(st, ins, "global", "st", inner.idx, global_at[inside].astype(U64), esize)
            st.writes += 1


@semantics("UTMALDG", family="async", pipe="uniform", mods=tuple(f"{d}D" for d in range(1, 6)), warp_level=True,
           doc="cp.async.bulk.tensor into shared memory ([URa]: destination, mbarrier, coordinates; [URb]: the "
               "tensor map), complete at issue: its bytes complete on the mbarrier; semantics.tensor_maps' box")
def utmaldg(ins):
    rank, box_row, map_row = _tma(ins)
    return Step(ins, lambda st, g: _copy_box(st, ins, g, rank, box_row, map_row, True),
                memory=("global", "ld", 16))


@semantics("UTMASTG", family="async", pipe="uniform", mods=tuple(f"{d}D" for d in range(1, 6)), warp_level=True,
           doc="cp.async.bulk.tensor from shared memory to the tensor ([URa]: source, coordinates; [URb]: the "
               "tensor map); elements outside the tensor are skipped")
def utmastg(ins):
    rank, box_row, map_row = _tma(ins)
    return Step(ins, lambda st, g: _copy_box(st, ins, g, rank, box_row, map_row, False),
                memory=("global", "st", 16))


def _bulk_operands(ins):
    """(destination row, source row, size row) of UBLKCP's [URa], [URb], URc."""
    ops = ins.operands
    if ".".join(ins.mods) not in ("S.G", "S.S", "G.S") or len(ops) != 3 or ops[2].kind != "ureg" \
            or ops[2].number is None or any(op.kind != "mem" or len(op.parts) != 1 or op.parts[0].kind != "ureg"
                                            or op.parts[0].number is None or op.offset for op in ops[:2]):
        raise Unsupported("UBLKCP form")
    return ops[0].parts[0].number, ops[1].parts[0].number, ops[2].number


def _address(st, row: int, slot: int, space: str) -> int:
    low = int(st.UR[row][slot])
    return low if space != "global" else low | (int(st.UR[row + 1][slot]) << 32)


def _bulk_copy(st, ins, g, dst_row: int, src_row: int, size_row: int) -> None:
    into, out_of = ("cluster" if m == "S" else "global" for m in ins.mods)
    if out_of == "cluster":
        out_of = "shared"                           # the source of .S.S is shared::cta
    firsts = g.warp_runs()[1]
    for slot in g.idx[firsts]:
        units = int(st.UR[size_row][slot])
        if units >> 16:
            raise SassExecutionError(f"{where(ins)}: the size operand 0x{units:x} has bits above the 16 of its "
                                     f"16-byte count, which the executor does not know")
        chunks = Group(np.full(units & 0xFFFF, slot))
        steps = U64(16) * np.arange(chunks.n, dtype=U64)
        dst = U64(_address(st, dst_row, slot, into)) + steps
        src = U64(_address(st, src_row, slot, out_of)) + steps
        if chunks.n:
            data = resolve(st, ins, chunks, out_of, src, 16)[0][1].gather(16)
            resolve(st, ins, chunks, into, dst, 16)[0][1].scatter(data)
            if "global" in (out_of, into):
                notify(st, ins, "global", "ld" if out_of == "global" else "st", chunks.idx,
                       src if out_of == "global" else dst, 16)
        if into == "cluster":
            bar = np.array([_address(st, dst_row + 1, slot, "cluster")], dtype=U64)
            view, bar_slot = _barrier_words(st, ins, Group(np.array([slot])), bar, "cluster")
            words.transact(view, bar_slot, -16 * chunks.n)
        else:
            st.writes += 1


@semantics("UBLKCP", family="async", pipe="uniform", mods=("S", "G"), warp_level=True,
           doc="cp.async.bulk: .S.G global to shared, .S.S shared::cta to a cluster CTA's shared ([URa]: "
               "destination, mbarrier), .G.S shared to global; URc: bytes / 16; complete at issue")
def ublkcp(ins):
    dst_row, src_row, size_row = _bulk_operands(ins)
    access = {"S.G": ("global", "ld", 16), "S.S": ("shared", "st", 16), "G.S": ("global", "st", 16)}
    return Step(ins, lambda st, g: _bulk_copy(st, ins, g, dst_row, src_row, size_row),
                memory=access[".".join(ins.mods)])


@semantics("UTMACMDFLUSH", "UTMACCTL", "UBLKPF", family="async", pipe="uniform", mods=("IV", "PF", "L2"),
           doc="commit_group of bulk copies, tensormap cache invalidate/prefetch, bulk L2 prefetch "
               "(cp.async.bulk.prefetch.L2): copies complete when they issue and no cache is modelled, so nothing "
               "is left to do")
def tma_no_result(ins):
    return Step(ins, lambda st, g: None)


@semantics("USETMAXREG", family="async", pipe="uniform", mods=("TRY_ALLOC", "DEALLOC", "CTAPOOL"),
           doc="setmaxnreg: the register file already holds every register; TRY_ALLOC succeeds (UP true)")
def usetmaxreg(ins):
    ops = ins.operands
    if "TRY_ALLOC" in ins.mods:
        if len(ops) != 2 or ops[0].kind != "upred":
            raise Unsupported("USETMAXREG form")
        write = pred_dest(ops[0])
        return Step(ins, lambda st, g: write(st, g, np.ones(g.n, dtype=bool)))
    if "DEALLOC" in ins.mods:
        return Step(ins, lambda st, g: None)
    raise Unsupported("USETMAXREG form")
