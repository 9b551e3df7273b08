"""A program's tiled segments as generated machine code: each lane runs a segment with its registers in locals.

run_tiled (tiled.py) runs a segment one instruction at a time over a tile of
lanes: per instruction a pass that computes and a pass that keeps the results,
plus the copies into and out of the tile, some 1.1-1.5 ns per lane and
instruction. Where every row of a segment has a per-lane form (the families'
LANES tables: the functions their row loops call for each lane), this module
writes Python source for the program (`program_source`): one `@cfunc` with a
branch per segment, chosen by the segment's number, that for each lane of the
group reads the registers and predicates the segment reads (once, before the
first instruction), runs every instruction on locals through the families'
per-lane forms (a guarded one keeps the old values where its guard fails, and
counts the lanes where it holds, as the tile counts them), and writes back
what it wrote; it returns 0 for a segment it does not hold (the caller runs
run_tiled then). It holds the segments that run most, up to MAX_FUSED: its
compile time grows with them. The per-lane forms are plain Numba functions,
which LLVM inlines; Numba's own inlining of each call site (inline="always")
took twice as long to compile.

Every program's function has the one signature SIGNATURE, so the round loop
(round_loop.run_rounds) and `run_fused` take it as a first-class function and
compile once for all programs; a program without one gets `nothing()`, which
covers no segment. The source is kept and compiled as the PTX tier keeps its
blocks (machine/compiled/block.py's compile_source: a file under the disk
cache named by its hash, compiled with cache=True), and carries
machine_code.tier_digest(): the families' code it inlines changes the file's
name, so Numba's cache, which checks only that file, is never stale.
`tests/sass/test_fused.py` runs every fused segment of real kernels against
run_tiled on random registers.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...machine.compiled.block import compile_source, is_cached_on_disk
from . import compare, floating, integer, moves
from ..executor.state import PT_ROW
from .layout import ABS, DESTS, FAMILY, FLOAT, GUARD_INVERT, GUARD_KIND, GUARD_ROW, INV, N_DESTS, N_SOURCES, NEG, \
    OP, FLAGS, PAIR, PRED, REG, SOURCES, UPRED, UREG, VALUE, WIDE, ZERO
from .machine_code import COMPILE_FROM, forget_if_stale, tier_digest

FAMILIES = {moves.FAMILY: ("moves", moves), integer.FAMILY: ("integer", integer),
            compare.FAMILY: ("compare", compare), floating.FAMILY: ("floating", floating)}

_P = types.CPointer
SIGNATURE = types.int64(types.int64,                                  # the segment's number
                        _P(types.uint32), types.int64, types.int64,   # R, its rows, thread slots
                        _P(types.boolean), types.int64,               # P, its rows
                        _P(types.uint32), types.int64,                # UR, its rows
                        _P(types.boolean), types.int64,               # UP, its rows
                        _P(types.uint64), types.int64,                # the value table, its length
                        _P(types.uint64), types.int64,                # the group's lanes, how many
                        _P(types.int64))                              # the segment's guard counts
ARGUMENTS = "number, r_at, r_rows, slots, p_at, p_rows, ur_at, ur_rows, up_at, up_rows, v_at, n_values, idx_at, n, k_at"
HEADER = ("from numba import cfunc, carray, types\n"
          "from warpsim.sass.compiled import compare, floating, integer, moves\n"
          "from warpsim.sass.compiled.fused import SIGNATURE\n"
          "from warpsim.sass.compiled.lanes import modified\n"
          "M32 = np.uint64(0xFFFFFFFF)\nHIGH32 = np.uint64(32)\nZERO64 = np.uint64(0)\n\n")


MAX_FUSED = 12         # segments a program's function holds at most (compile time grows with them)


class NotFused(Exception):
    """A segment the generated code does not cover (it runs on the tile)."""


@njit(cache=True, nogil=True)
def run_fused(fused, number, R, P, UR, UP, values, idx, counts):
    """Segment `number` of the program whose function `fused` is, for lanes idx (uint64); 1 where it
    ran, 0 where it does not cover that segment."""
    return fused(number, R.ctypes, R.shape[0], R.shape[1], P.ctypes, P.shape[0], UR.ctypes, UR.shape[0],
                 UP.ctypes, UP.shape[0], values.ctypes, values.shape[0], idx.ctypes, idx.shape[0], counts.ctypes)


forget_if_stale(run_fused)


class SegmentSource:
    """The lines of one segment's branch of the program's function (`source`): for each lane of idx,
    its loads, the instructions on locals, its stores; then the guard counts."""

    def __init__(self, segment, number: int):
        if segment.tiled is None:
            raise NotFused("no tile plan (a uniform instruction or destination, a per-lane family form)")
        self.number = number
        self.before: list[str] = []         # once per call: constants, setups
        self.body: list[str] = []           # per lane, after the loads
        self.after: list[str] = []          # once per call: the guard counts
        self.loaded: set = set()            # (file, row) read before every lane writes it, or kept under a guard
        self.written: set = set()
        self.covered: set = set()           # written by an instruction without a guard
        for k, (row, ins_text) in enumerate(zip(segment.code, segment.texts)):
            self.body.append(f"# {ins_text}")
            self._instruction(k, row)

    # ---- operands
    def _use(self, key) -> str:
        if key not in self.covered:
            self.loaded.add(key)
        return _local(key)

    def _value(self, k: int, s: int, kind: int, a: int, mods: int) -> str:
        wide = bool(mods & PAIR)
        if kind in (ZERO, VALUE):
            name = f"c{k}_{s}"
            if kind == VALUE:
                read = f"values[{a}]" if wide else f"(values[{a}] & M32)"
            else:
                read = "ZERO64"
            self.before.append(f"{name} = modified({read}, {mods}, {wide})")
            return name
        if kind not in (REG, UREG):
            raise NotFused(f"source kind {kind} as a value")
        file = "R" if kind == REG else "UR"
        expr = self._use((file, a))
        if wide:
            expr = f"({expr} | ({self._use((file, a + 1))} << HIGH32))"
        if mods & (NEG | INV | ABS):
            expr = f"modified({expr}, {mods}, {wide})"
        return expr

    def _predicate(self, kind: int, a: int, mods: int) -> str:
        invert = bool(mods & INV)
        if kind == PRED and a == PT_ROW:        # PT, !PT: as the tile's fixed rows
            return str(not invert)
        if kind not in (PRED, UPRED):
            raise NotFused(f"source kind {kind} as a predicate")
        name = self._use(("P" if kind == PRED else "UP", a))
        return f"(not {name})" if invert else name

    # ---- one instruction
    def _instruction(self, k: int, row) -> None:
        family_name, module = FAMILIES[int(row[FAMILY])]
        op, flags = int(row[OP]), int(row[FLAGS])
        form = module.LANES.get(op)
        if form is None:
            raise NotFused(f"{family_name} operation {op} has no per-lane form")
        function, sources, results = form[:3]
        setup = form[3] if len(form) > 3 else None
        if sources.replace("0", "") != "".join("p" if _kind(row, s) in (PRED, UPRED) else "v"
                                               for s in range(int(row[N_SOURCES]))):
            raise NotFused(f"{family_name} operation {op}: operands other than its per-lane form's")
        guard = None
        if row[GUARD_KIND] != 0:
            file = "P" if row[GUARD_KIND] == PRED else "UP"
            guard = f"g{k}"
            self.body.append(f"{guard} = {self._use((file, int(row[GUARD_ROW])))} != {bool(row[GUARD_INVERT])}")
            self.body.append(f"held{k} += {guard}")
            self.before.append(f"held{k} = 0")
            self.after.append(f"counts[{k}] += held{k}")
        else:
            self.after.append(f"counts[{k}] += n")
        arguments, s = [], 0
        for spec in sources:
            if spec == "0":
                arguments.append("ZERO64")
                continue
            at = SOURCES + 3 * s
            kind, a, mods = (int(x) for x in row[at:at + 3])
            arguments.append(self._predicate(kind, a, mods) if spec == "p" else self._value(k, s, kind, a, mods))
            s += 1
        head = f"{family_name}.{function.__name__}("
        if setup is not None:
            self.before.append(f"setup{k} = {family_name}.{setup.__name__}({op}, {flags})")
            head += f"setup{k}, "
        else:
            head += f"{op}, {flags}, "
        outs = [f"o{k}_{d}" for d in range(len(results))]
        self.body.append(f"{', '.join(outs)} = {head}{', '.join(arguments)})")
        writes = []
        for d in range(int(row[N_DESTS])):
            kind, target = int(row[DESTS + 2 * d]), int(row[DESTS + 2 * d + 1])
            if kind == ZERO:
                continue
            if d >= len(results):
                raise NotFused(f"{family_name} operation {op}: destination {d} has no result")
            base, wide = kind & ~WIDE, bool(kind & WIDE)
            if (base == REG) != (results[d] == "v") or base not in (REG, PRED):
                raise NotFused(f"{family_name} operation {op}: destination {d} of kind {kind}")
            if base == PRED:
                writes.append((("P", target), outs[d]))
            else:
                writes.append((("R", target), f"({outs[d]} & M32)"))
                if wide:
                    writes.append((("R", target + 1), f"({outs[d]} >> HIGH32)"))
        for key, value in writes:           # all results computed first: a destination may be a source
            if guard is not None:
                self._use(key)
                value = f"{value} if {guard} else {_local(key)}"
            self.body.append(f"{_local(key)} = {value}")
            self.written.add(key)
            if guard is None:
                self.covered.add(key)

    def source(self) -> list:
        loads = [f"{_local(key)} = " + (f"np.uint64({key[0]}[{key[1]}, lane])" if key[0] in ("R", "UR")
                                        else f"{key[0]}[{key[1]}, lane]") for key in sorted(self.loaded)]
        stores = [f"{key[0]}[{key[1]}, lane] = " + (f"np.uint32({_local(key)})" if key[0] == "R" else _local(key))
                  for key in sorted(self.written)]
        lines = list(self.before)
        lines += ["for j in range(n):", "    lane = idx[j]"]
        lines += ["    " + line for line in loads + self.body + stores]
        lines += self.after
        return lines


def _kind(row, s: int) -> int:
    return int(row[SOURCES + 3 * s])


def _local(key) -> str:
    return {"R": "r", "UR": "ur", "P": "p", "UP": "up"}[key[0]] + str(key[1])


def program_source(program, every: bool = False) -> tuple:
    """(the source of the program's function, {segment number: why it is not fused}). It holds the
    program's MAX_FUSED segments that run most, as far as the code shows: those inside a loop first
    (between a backward branch's target and the branch), then the longest. Compiling takes a second or
    two for the function and a quarter of a second a segment (a collatz loop that ptxas unrolled into
    204 segments took minutes), and a segment that runs once a thread gains a fraction of a
    millisecond a launch of 65,536 threads. every=True takes every segment the generated code covers
    (the tests check them all)."""
    parts, why = [], {}
    looped = _in_loops(program)
    candidates = []
    for block_index, runs in program.segments.items():
        start = program.blocks[block_index].start
        for segment in runs.values():
            candidates.append((not looped[start + segment.start], -len(segment.code), segment.number, segment))
    candidates = [c[-1] for c in sorted(candidates, key=lambda c: c[:3])]
    for segment in candidates:
        if len(parts) >= MAX_FUSED and not every:
            why[segment.number] = f"past the program's {MAX_FUSED} segments that run most"
            continue
        try:
            parts.append((segment.number, len(segment.code), SegmentSource(segment, segment.number).source()))
        except NotFused as reason:
            why[segment.number] = str(reason)
    lines = [f"TIER = {tier_digest()!r}     # the families' code this inlines: a new file when it changes",
             "@cfunc(SIGNATURE, cache=True, nogil=True)",
             f"def fused({ARGUMENTS}):",
             "    R = carray(r_at, (r_rows, slots))",
             "    P = carray(p_at, (p_rows, slots))",
             "    UR = carray(ur_at, (ur_rows, slots))",
             "    UP = carray(up_at, (up_rows, slots))",
             "    values = carray(v_at, (n_values,))",
             "    idx = carray(idx_at, (n,))"]
    for number, size, body in parts:
        lines += [f"    if number == {number}:", f"        counts = carray(k_at, ({size},))"]
        lines += ["        " + line for line in body]
        lines.append("        return 1")
    lines.append("    return 0")
    return HEADER + "\n".join(lines) + "\n", why


def _in_loops(program) -> np.ndarray:
    """Per instruction, whether it lies inside a loop: between a backward branch's target and the
    branch (compilers lay a loop's body out before its back edge)."""
    count = len(program.instructions)
    marks = np.zeros(count + 1, dtype=np.int64)
    for k in range(count):
        for target in program.successors(k):
            if target <= k:
                marks[target] += 1
                marks[k + 1] -= 1
    return np.cumsum(marks)[:count] > 0


def nothing():
    """The function of a program that has none: it covers no segment (the round loop takes one)."""
    global _NOTHING
    if _NOTHING is None:
        source = HEADER + "@cfunc(SIGNATURE, cache=True, nogil=True)\n" + f"def fused({ARGUMENTS}):\n    return 0\n"
        _NOTHING = compile_source(source, "fused")[0]
    return _NOTHING


_NOTHING = None


def fused_for(program, engine: str, slots: int, every: bool = False):
    """The program's function for a batch of `slots` thread slots under `engine` (settings), or None:
    machine code not allowed, no segment it covers. Compiled as the tier's other machine code is
    allowed (segment.machine_code_allowed): never under 'numpy'; under 'auto' once in the disk cache
    or for a batch of COMPILE_FROM slots; kept on the program once compiled. Whether it is in the disk
    cache is asked once, when the program's source is made (as machine/compiled/tier.py's blocks ask),
    not at every batch. `every`: as program_source's."""
    if engine == "numpy" or not program.segments:
        return None
    kept = program.__dict__.setdefault("_fused", {})
    found = kept.get(every)
    if found is None:
        source, why = program_source(program, every)
        any_covered = len(why) < _segment_count(program)
        found = kept[every] = [source, None, any_covered, any_covered and is_cached_on_disk(source)]
    source, function, any_covered, cached = found
    if not any_covered:
        return None
    if function is None:
        if engine != "compiled" and slots < COMPILE_FROM and not cached:
            return None
        function = found[1] = compile_source(source, "fused")[0]
    return function


def _segment_count(program) -> int:
    return sum(len(runs) for runs in program.segments.values())


def call(function, segment, st, idx, values, counts) -> int:
    """run_fused for one segment of batch st (lanes idx as uint64): 1 where it ran, 0 where not."""
    return run_fused(function, segment.number, st.R, st.P, st.UR, st.UP, values, idx, counts)
