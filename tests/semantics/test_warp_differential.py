"""Warp collectives: SASS VOTE/MATCH/REDUX/SHFL and PTX vote/match/redux/shfl against a lane-by-lane reference.

Both executors reach semantics/warp.py. The reference below follows the PTX
manual's definitions one lane at a time with Python integers: a lane meets the
lanes of its warp that take part and that its member mask names (a lane whose
own mask leaves it out, undefined in PTX, still takes part for the lanes that
name it, as lanes issuing a SASS VOTE together do); SASS's lanes issuing
together are PTX with the group's own ballot as every lane's mask. Groups are random subsets of three warps, the
last one partial (a block of 80 threads), in sorted and shuffled order, and
shuffles use random offsets, clamps and segment masks so lanes fall out of range.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass

import numpy as np
import pytest

from sass_steps import edge_bits
from warpsim.machine.isa import warp as ptx_warp
from warpsim.sass.disasm import parse_instruction
from warpsim.sass.executor.state import Group, SassState
from warpsim.sass.executor.table import build_step
from warpsim.semantics import warp as lanes

THREADS = 80                  # warps of 32, 32 and 16 lanes
SLOTS = 96
SEEDS = range(6)


@dataclass
class _Program:
    registers: int = 16
    uniform_registers: int = 8


def _group(rng) -> np.ndarray:
    """Sorted slots of a random subset of the block's threads (at least one)."""
    keep = rng.random(THREADS) < rng.choice([0.3, 0.7, 1.0])
    keep[rng.integers(THREADS)] = True
    return np.flatnonzero(keep)


def _member_masks(rng, slots) -> np.ndarray:
    """Per lane, a random mask that mostly names the lane itself and some of its warp."""
    masks = rng.integers(0, 2 ** 32, size=len(slots), dtype=np.uint64).astype(np.uint32)
    own = rng.random(len(slots)) < 0.85
    masks[own] |= (np.uint32(1) << (slots[own] & 31).astype(np.uint32))
    return masks


def _meets(slots, masks) -> list:
    """Per lane, the set of slots it meets (PTX's definition; masks None: the whole group)."""
    out = []
    for i, s in enumerate(slots):
        mine = []
        for j, t in enumerate(slots):
            if t >> 5 != s >> 5:
                continue
            if masks is not None and not (int(masks[i]) >> (t & 31)) & 1:
                continue
            mine.append(j)
        out.append(mine)
    return out


def _word(slots, members) -> int:
    return sum(1 << (int(slots[j]) & 31) for j in members)


def _run_sass(text, slots, registers=None, predicates=None, exclusive=None):
    state = SassState(_Program(), (1, 1, 1), (THREADS, 1, 1), np.arange(1), {}, 0, 0, None)
    for row, values in (registers or {}).items():
        state.R[row][slots] = values
    for row, values in (predicates or {}).items():
        state.P[row][slots] = values
    if exclusive is not None:
        state.exclusive[slots] = exclusive
    build_step(parse_instruction(text)).run(state, Group(slots))
    return state


def _ptx_group_masks(slots):
    return np.asarray(ptx_warp.activemask(None, slots), dtype=np.uint32)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["all", "any", "uni", "ballot"])
def test_vote_agrees(mode, seed):
    rng = np.random.default_rng(zlib.crc32(f"vote.{mode}.{seed}".encode()))
    slots = _group(rng)
    pred = rng.random(len(slots)) < rng.choice([0.05, 0.5, 0.95])
    masks = _member_masks(rng, slots)
    for who, member in (("group", None), ("masked", masks)):
        want = []
        for i, mine in enumerate(_meets(slots, member)):
            votes = [bool(pred[j]) for j in mine]
            want.append({"all": all(votes), "any": any(votes), "uni": all(votes) or not any(votes),
                         "ballot": _word(slots, [j for j in mine if pred[j]])}[mode])
        ptx_mask = _ptx_group_masks(slots) if member is None else member
        ptx = ptx_warp.vote(None, slots, mode, pred, ptx_mask)
        assert [int(v) for v in ptx] == [int(v) for v in want], f"PTX vote.{mode} ({who})"
    want_group = [int(v) for v in lanes.vote(mode, slots, pred)]
    if mode == "ballot":
        state = _run_sass("VOTE.ANY R4, PT, P0 ;", slots, predicates={0: pred})
        got = state.R[4][slots]
    else:
        state = _run_sass(f"VOTE.{ {'all': 'ALL', 'any': 'ANY', 'uni': 'EQ'}[mode]} P1, P0 ;", slots,
                          predicates={0: pred})
        got = state.P[1][slots]
    assert [int(v) for v in got] == want_group, f"SASS VOTE ({mode})"
    ptx_same = ptx_warp.vote(None, slots, mode, pred, _ptx_group_masks(slots))
    assert [int(v) for v in got] == [int(v) for v in ptx_same]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("mode", ["any", "all"])
def test_match_agrees(mode, wide, seed):
    rng = np.random.default_rng(zlib.crc32(f"match.{mode}.{wide}.{seed}".encode()))
    slots = _group(rng)
    dtype = np.uint64 if wide else np.uint32
    pool = rng.permutation(edge_bits(rng, 64 if wide else 32, 64))[:4].astype(dtype)
    values = pool[rng.integers(0, rng.choice([1, 2, 4]), size=len(slots))]
    if wide:                                  # equal low words, different high ones must not match
        values[::3] = (values[::3] & dtype(0xFFFFFFFF)) | dtype(1 << 40)
    masks = _member_masks(rng, slots)
    for who, member in (("group", None), ("masked", masks)):
        want_mask, want_agree = [], []
        for i, mine in enumerate(_meets(slots, member)):
            same = _word(slots, [j for j in mine if values[j] == values[i]])
            everyone = _word(slots, mine)
            want_mask.append(same if mode == "any" else (everyone if same == everyone else 0))
            want_agree.append(same == everyone)
        ptx = ptx_warp.match(None, slots, mode, values, _ptx_group_masks(slots) if member is None else member)
        got_mask, got_agree = (ptx, None) if mode == "any" else ptx
        assert [int(v) for v in got_mask] == want_mask, f"PTX match.{mode} ({who})"
        if got_agree is not None:
            assert [bool(v) for v in got_agree] == want_agree, f"PTX match.all predicate ({who})"
    width = ".U64" if wide else ""
    registers = {2: (values & dtype(0xFFFFFFFF)).astype(np.uint32)}
    if wide:
        registers[3] = (values >> dtype(32)).astype(np.uint32)
    text = f"MATCH.ANY{width} R4, R2 ;" if mode == "any" else f"MATCH.ALL{width} P1, R4, R2 ;"
    state = _run_sass(text, slots, registers)
    want = lanes.match(mode, slots, values)
    want_mask = want if mode == "any" else want[0]
    assert [int(v) for v in state.R[4][slots]] == [int(v) for v in want_mask], f"SASS MATCH.{mode.upper()}{width}"
    if mode == "all":
        assert [bool(v) for v in state.P[1][slots]] == [bool(v) for v in want[1]]


def _reduce_reference(op, values):
    fn = {"add": lambda a, b: a + b, "min": min, "max": max, "and": lambda a, b: a & b,
          "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[op]
    return functools.reduce(fn, values)


SASS_REDUCTIONS = {"add": "SUM", "min": "MIN", "max": "MAX", "and": "AND", "or": "OR", "xor": "XOR"}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("op", list(SASS_REDUCTIONS))
def test_redux_agrees(op, signed, seed):
    rng = np.random.default_rng(zlib.crc32(f"redux.{op}.{signed}.{seed}".encode()))
    slots = _group(rng)
    bits = rng.permutation(edge_bits(rng, 32, THREADS))[:len(slots)]
    typed = bits.view(np.int32) if signed else bits
    masks = _member_masks(rng, slots)
    for who, member in (("group", None), ("masked", masks)):
        want = []
        for i, mine in enumerate(_meets(slots, member)):
            if not mine:                      # a lane that meets nobody gets the identity
                want.append({"add": 0, "or": 0, "xor": 0, "and": -1, "min": 0x7FFFFFFF if signed else -1,
                             "max": -0x80000000 if signed else 0}[op])
                continue
            total = _reduce_reference(op, [int(typed[j]) for j in mine])
            want.append(total & 0xFFFFFFFF)
        ptx = ptx_warp.redux(None, slots, op, typed, _ptx_group_masks(slots) if member is None else member)
        assert [int(v) & 0xFFFFFFFF for v in ptx] == [w & 0xFFFFFFFF for w in want], f"PTX redux.{op} ({who})"
    text = f"REDUX.{SASS_REDUCTIONS[op]}{'.S32' if signed else ''} UR4, R2 ;"
    state = _run_sass(text, slots, {2: bits})
    ptx_same = ptx_warp.redux(None, slots, op, typed, _ptx_group_masks(slots))
    assert [int(v) for v in state.UR[4][slots]] == [int(v) & 0xFFFFFFFF for v in ptx_same], f"SASS {text}"


@pytest.mark.parametrize("seed", SEEDS)
def test_redux_without_modifier_is_and(seed):
    """nvdisasm prints REDUX's default operation, AND, as no modifier (ptxas's atom.shared.and)."""
    rng = np.random.default_rng(zlib.crc32(f"redux.bare.{seed}".encode()))
    slots = _group(rng)
    bits = rng.permutation(edge_bits(rng, 32, THREADS))[:len(slots)]
    state = _run_sass("REDUX UR4, R2 ;", slots, {2: bits})
    want = ptx_warp.redux(None, slots, "and", bits, _ptx_group_masks(slots))
    assert [int(v) for v in state.UR[4][slots]] == [int(v) & 0xFFFFFFFF for v in want]


@pytest.mark.parametrize("seed", SEEDS)
def test_elect_agrees(seed):
    """ELECT Pd, URd, PT is elect.sync with every lane of the group named: the lowest lane leads."""
    rng = np.random.default_rng(zlib.crc32(f"elect.{seed}".encode()))
    slots = _group(rng)
    state = _run_sass("ELECT P0, UR4, PT ;", slots)
    leader, is_leader = ptx_warp.elect(None, slots, _ptx_group_masks(slots))
    want = [min(int(t) & 31 for t in slots if t >> 5 == s >> 5) for s in slots]
    assert [int(v) for v in leader] == want, "PTX elect.sync"
    assert [int(v) for v in state.UR[4][slots]] == want, "SASS ELECT's UR"
    assert [bool(v) for v in state.P[0][slots]] == [bool(v) for v in is_leader], "SASS ELECT's P"


@pytest.mark.parametrize("seed", SEEDS)
def test_redux_per_exclusive_mask(seed):
    """After WARPSYNC.EXCLUSIVE each mask's lanes reduce alone (cub's 16-lane logical warps)."""
    rng = np.random.default_rng(seed)
    slots = np.arange(THREADS)
    width = int(rng.choice([4, 8, 16]))
    masks = np.array([((1 << width) - 1) << (s & 31 & ~(width - 1)) for s in slots], dtype=np.uint64)
    bits = edge_bits(rng, 32, len(slots))
    state = _run_sass("REDUX.SUM UR4, R2 ;", slots, {2: bits}, exclusive=masks)
    want = [sum(int(bits[j]) for j in range(THREADS) if j >> 5 == s >> 5 and (int(masks[s]) >> (j & 31)) & 1)
            & 0xFFFFFFFF for s in slots]
    assert [int(v) for v in state.UR[4][slots]] == want
    ptx = ptx_warp.redux(None, slots, "add", bits, masks.astype(np.uint32))
    assert [int(v) for v in ptx] == want


def _shuffle_reference(lane: int, mode: str, b: int, c: int) -> tuple:
    """The PTX manual's shfl.sync pseudo-code for one lane."""
    bval, clamp, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (clamp & ~segmask & 31)
    min_lane = lane & segmask
    if mode == "up":
        j, ok = lane - bval, lane - bval >= max_lane
    elif mode == "down":
        j, ok = lane + bval, lane + bval <= max_lane
    elif mode == "bfly":
        j, ok = lane ^ bval, (lane ^ bval) <= max_lane
    else:
        j = min_lane | (bval & ~segmask & 31)
        ok = j <= max_lane
    return (j if ok else lane), ok


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", lanes.SHUFFLE_MODES)
def test_shuffle_agrees(mode, seed):
    rng = np.random.default_rng(zlib.crc32(f"shfl.{mode}.{seed}".encode()))
    slots = _group(rng)
    lane = slots & 31
    b = rng.integers(0, 64, size=len(slots)).astype(np.uint32)            # bits above 4 are ignored
    segment = rng.choice([0, 0x10, 0x18, 0x1C, 0x1E, 0x1F, int(rng.integers(0, 32))])
    c = (rng.integers(0, 32, size=len(slots)) | (segment << 8)).astype(np.uint32)
    c[::5] = 0x1F                                   # the plain whole-warp form too
    b[1::7], c[1::7] = 5, 0                         # clamp 0: out of range for most lanes
    want = [_shuffle_reference(int(l), mode, int(bv), int(cv)) for l, bv, cv in zip(lane, b, c)]
    j, ok = lanes.shuffle_sources(lane, mode, b, c)
    assert [(int(x), bool(y)) for x, y in zip(j, ok)] == want, f"shuffle_sources({mode})"
    assert len(slots) < 8 or (not ok.all() and ok.any()), "the draw should put some lanes out of range and some in"
    register = edge_bits(rng, 32, SLOTS)                  # lanes outside the group hold values too
    state = SassState(_Program(), (1, 1, 1), (THREADS, 1, 1), np.arange(1), {}, 0, 0, None)
    state.R[2][:] = register
    state.R[3][slots], state.R[5][slots] = b, c
    build_step(parse_instruction(f"SHFL.{mode.upper()} P0, R4, R2, R3, R5 ;")).run(state, Group(slots))
    sources = (slots & ~31) + np.array([w[0] for w in want])
    assert np.array_equal(state.R[4][slots], register[sources]), f"SHFL.{mode.upper()} values"
    assert [bool(v) for v in state.P[0][slots]] == [w[1] for w in want], f"SHFL.{mode.upper()} predicate"


@pytest.mark.parametrize("seed", SEEDS)
def test_unsorted_slots_give_the_same_answers(seed):
    """The PTX machine may hand a group in any order: the answers follow the lanes."""
    rng = np.random.default_rng(seed)
    slots = _group(rng)
    order = rng.permutation(len(slots))
    masks = _member_masks(rng, slots)
    values = rng.integers(0, 3, size=len(slots)).astype(np.uint32)
    pred = rng.random(len(slots)) < 0.5
    for sorted_result, shuffled in (
            (lanes.ballot(slots, pred), lanes.ballot(slots[order], pred[order])),
            (lanes.vote("uni", slots, pred, masks), lanes.vote("uni", slots[order], pred[order], masks[order])),
            (lanes.match("any", slots, values, masks), lanes.match("any", slots[order], values[order], masks[order])),
            (lanes.redux("xor", slots, values, masks), lanes.redux("xor", slots[order], values[order], masks[order])),
            (lanes.elect(slots, masks)[0], lanes.elect(slots[order], masks[order])[0])):
        assert np.array_equal(sorted_result[order], shuffled)


@pytest.mark.parametrize("kind", ["eq", "lt", "le", "gt", "ge"])
def test_lane_masks_agree(kind):
    """S2R SR_<kind>MASK and mov %lanemask_<kind> read semantics.warp.lane_mask: the lanes below,
    at or above the reading lane."""
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    slots = _group(rng)
    state = _run_sass(f"S2R R4, SR_{kind.upper()}MASK ;", slots)
    relation = {"eq": int.__eq__, "lt": int.__lt__, "le": int.__le__, "gt": int.__gt__, "ge": int.__ge__}[kind]
    want = [sum(1 << j for j in range(32) if relation(j, int(s) & 31)) for s in slots]
    assert [int(v) for v in state.R[4][slots]] == want
    assert [int(v) for v in lanes.lane_mask(kind, slots & 31)] == want
