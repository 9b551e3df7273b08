"""Atomics: SASS ATOM*/RED* and PTX atom/red against a lane-by-lane reference on random bits.

Both executors reach semantics/atomics.py (SASS through `apply_atomic`, PTX's
runtime through `update` with its type name); the reference below serves the
lanes one at a time in lane order with Python integers (wrap-around by masking)
and NumPy scalars for floats, so a wrong scan, round or operation shows.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from sass_steps import edge_bits
from warpsim.sass.executor.atomics import apply_atomic
from warpsim.semantics.atomics import update

N, WORDS = 256, 7          # few words, many lanes: every conflict path runs

DTYPES = {"u32": np.uint32, "s32": np.int32, "u64": np.uint64, "s64": np.int64, "f32": np.float32,
          "f64": np.float64}


def _reference_step(op, old, a, b, dtype):
    kind = np.dtype(dtype).kind
    if kind == "f":
        with np.errstate(all="ignore"):
            return {"add": lambda: dtype(old + a), "min": lambda: np.fmin(old, a),
                    "max": lambda: np.fmax(old, a), "exch": lambda: a}[op]()
    bits = np.dtype(dtype).itemsize * 8
    wrap = lambda v: np.array(v & ((1 << bits) - 1), dtype=np.uint64).astype(np.dtype(dtype).str.replace("i", "u")).view(dtype)[()]
    o, x, y = int(old), int(a), int(b)
    return {"add": lambda: wrap(o + x), "min": lambda: min(old, a), "max": lambda: max(old, a),
            "exch": lambda: a, "cas": lambda: b if o == x else old, "and": lambda: wrap(o & x),
            "or": lambda: wrap(o | x), "xor": lambda: wrap(o ^ x),
            "inc": lambda: dtype(0) if o >= x else wrap(o + 1),
            "dec": lambda: a if o == 0 or o > x else wrap(o - 1)}[op]()


def _reference(memory, slots, op, a, b, dtype):
    memory = memory.copy()
    old = np.empty(len(slots), dtype=dtype)
    for lane, slot in enumerate(slots):
        old[lane] = memory[slot]
        memory[slot] = _reference_step(op, memory[slot], a[lane], b[lane], dtype)
    return old, memory


def _inputs(type_name, seed):
    rng = np.random.default_rng(seed)
    dtype = DTYPES[type_name]
    bits = np.dtype(dtype).itemsize * 8
    memory = edge_bits(rng, bits, N)[rng.choice(N, WORDS, replace=False)].view(dtype)
    a, b = edge_bits(rng, bits, N).view(dtype), edge_bits(rng, bits, N).view(dtype)
    if np.dtype(dtype).kind != "f":                  # small operands so inc/dec and cas meet both branches
        a[::3] = (rng.integers(0, 4, size=len(a[::3]))).astype(dtype)
        b[::5] = a[::5]
        memory[:3] = np.array([0, 1, 2], dtype=dtype)
    slots = rng.integers(0, WORDS, size=N)
    slots[: N // 4] = np.arange(N // 4) % WORDS        # and a stretch with one lane per word per round
    return memory, slots, a, b


def _same(got, want, what):
    if got.dtype.kind == "f":                        # an add's NaN payload is the host's: any NaN matches any
        got, want = got.copy(), want.copy()
        both = np.isnan(got) & np.isnan(want)
        got[both] = want[both] = np.nan
    assert got.tobytes() == want.tobytes(), (
        f"{what}: first difference at {np.flatnonzero(got.view(np.uint8) != want.view(np.uint8))[:1]}")


INTEGER_OPS = ("add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec")


@pytest.mark.parametrize("type_name", ["u32", "s32", "u64", "s64"])
@pytest.mark.parametrize("op", INTEGER_OPS)
def test_integer_atomics_agree(op, type_name):
    memory, slots, a, b = _inputs(type_name, zlib.crc32(f"{op}.{type_name}".encode()))
    dtype = DTYPES[type_name]
    want_old, want_memory = _reference(memory, slots, op, a, b, dtype)
    sass_memory = memory.copy()
    sass_old = apply_atomic(sass_memory.view(np.uint8), slots * np.dtype(dtype).itemsize, op.upper(), dtype,
                            a, b if op == "cas" else None)
    ptx_memory = memory.copy()
    with np.errstate(all="ignore"):                  # as the PTX engine runs blocks
        ptx_old = update(ptx_memory, slots, op, type_name, a, b if op == "cas" else None)
    for who, old, mem in (("SASS", sass_old, sass_memory), ("PTX", ptx_old, ptx_memory)):
        _same(old, want_old, f"{who} {op}.{type_name} old values")
        _same(mem, want_memory, f"{who} {op}.{type_name} memory")


@pytest.mark.parametrize("type_name", ["f32", "f64"])
@pytest.mark.parametrize("op", ["add", "exch", "min", "max"])
def test_float_atomics_agree(op, type_name):
    memory, slots, a, b = _inputs(type_name, zlib.crc32(f"{op}.{type_name}".encode()))
    dtype = DTYPES[type_name]
    want_old, want_memory = _reference(memory, slots, op, a, b, dtype)
    ptx_memory = memory.copy()
    with np.errstate(all="ignore"):
        ptx_old = update(ptx_memory, slots, op, type_name, a)
    _same(ptx_old, want_old, f"PTX {op}.{type_name} old values")
    _same(ptx_memory, want_memory, f"PTX {op}.{type_name} memory")
    if op in ("add", "exch"):                        # the executor runs only ADD on floats (and EXCH as bits)
        sass_memory = memory.copy()
        sass_old = apply_atomic(sass_memory.view(np.uint8), slots * np.dtype(dtype).itemsize, op.upper(),
                                dtype, a)
        _same(sass_old, want_old, f"SASS {op}.{type_name} old values")
        _same(sass_memory, want_memory, f"SASS {op}.{type_name} memory")


def _contended(kind, rng):
    """Slots, compare and new values of CAS patterns under contention (u32): a loop raising a
    maximum (every lane compares with the word it read), a lock taken (compare 0, new 1), and
    chains where each lane compares with the value the lane before it wrote (more changes a
    word than the passes that follow changes, so the lane-by-lane rest runs too)."""
    if kind == "maximum":
        slots = rng.integers(0, 5, 2048)
        memory = rng.integers(0, 1 << 20, 5).astype(np.uint32)
        compare = memory[slots]
        return memory, slots, compare, np.maximum(compare, rng.integers(0, 1 << 21, 2048).astype(np.uint32))
    if kind == "lock":
        slots = rng.integers(0, 3, 512)
        return np.zeros(3, dtype=np.uint32), slots, np.zeros(512, dtype=np.uint32), np.ones(512, dtype=np.uint32)
    slots = np.repeat(np.arange(3), 100)                 # chains: word g goes g, g+1, ... one lane at a time
    memory = np.arange(3, dtype=np.uint32) * 1000
    hits = np.ones(300, dtype=np.int64)
    hits[rng.choice(300, 20, replace=False)] = 0          # some lanes miss, and the chain goes on past them
    before = (np.cumsum(hits.reshape(3, 100), axis=1) - hits.reshape(3, 100)).ravel()
    compare = (memory[slots] + before + 7 * (1 - hits)).astype(np.uint32)
    return memory, slots, compare, (compare + 1).astype(np.uint32)


@pytest.mark.parametrize("kind", ["maximum", "lock", "chains"])
def test_contended_cas_serializes_in_lane_order(kind):
    memory, slots, compare, new = _contended(kind, np.random.default_rng(zlib.crc32(kind.encode())))
    want_old, want_memory = _reference(memory, slots, "cas", compare, new, np.uint32)
    got_memory = memory.copy()
    got_old = update(got_memory, slots, "cas", "b32", compare, new)
    _same(got_old, want_old, f"{kind}: old values")
    _same(got_memory, want_memory, f"{kind}: memory")
    assert len(np.unique(want_old)) > 1                  # the pattern changes words, so order matters


@pytest.mark.parametrize("op", ["inc", "exch"])
def test_one_word_many_lanes(op):
    """Every lane at one word: more lanes than a pass per lane pays for (inc goes lane by lane)."""
    rng = np.random.default_rng(3)
    slots = np.zeros(600, dtype=np.int64)
    a = rng.integers(0, 300, 600).astype(np.uint32)
    memory = np.array([5], dtype=np.uint32)
    want_old, want_memory = _reference(memory, slots, op, a, a, np.uint32)
    got_memory = memory.copy()
    got_old = update(got_memory, slots, op, "u32", a)
    _same(got_old, want_old, f"{op} old values")
    _same(got_memory, want_memory, f"{op} memory")
