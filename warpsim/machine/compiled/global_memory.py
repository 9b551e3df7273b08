"""Global loads, stores and atomics in a compiled block (block.py's tier, not the round loop).

Loads and stores of one word or of a .v2/.v4 vector of them (each lane's elements one access,
its address checked against their whole size), and scalar atomics.

The NumPy tier runs a block instruction by instruction over all its lanes: one
memory instruction for every lane (each lane checked before any lane's access
happens), then the next. A compiled block runs lane by lane, so it keeps that
order with one pass over its lanes per memory instruction, recomputing each
lane's value instructions (pure) and taking what earlier memory instructions
gave the lane (a load's value, an atomic's old value) from per-lane arrays:

  check  every lane's loads before the block's first write (kept, `saved_<t>`)
         and the first write's address, all checked (find_allocation). A bad
         address stops here with nothing changed: the caller runs the block on
         the NumPy tier, which reports the fault (or serves a host range or a
         mapped page) as it always does;
  per memory instruction from the first write on:
    late  (after the first write) every lane's address checked; a bad one stops
          the block where the NumPy tier would stop, earlier instructions done
          for every lane, and the caller has access.resolve report it (only
          when no host range or mapped page could make the address good);
    do    the access for every lane in lane order, the order semantics/atomics.py
          serves conflicting lanes in (a store's last lane wins, as NumPy's
          scatter); then, while the livelock watch counts only writes that change
          memory (ctx.changes_only), whether any lane's word differs from what it
          held before (a store) or from the old value the lane saw (an atomic), as
          access.store and isa/atomics.apply decide;
  run    the whole block per lane, registers and next block stored.

Written bytes are marked initialized, as access.store marks them. What an atomic
computes is semantics/atomics.py's RMW; the expressions here are its operations
on one lane's register bits, for the operations and types whose NumPy result is
exact on every input (float min/max are not: NumPy's fmin picks a NaN's payload
or a zero's sign differently in its vector and scalar loops, so they stay on NumPy).
"""

from __future__ import annotations

import numpy as np

from ...ptx.ir import Addr, Reg, Sink, Sym, Vec
from ...semantics.atomics import ATOMIC_OPS
from .. import access


class NotCovered(Exception):
    """The block has an instruction the compiled tier does not run exactly."""


BITS = {"u32": 32, "s32": 32, "b32": 32, "f32": 32, "u64": 64, "s64": 64, "b64": 64, "f64": 64}
WRITES = ("st", "atom", "red")
# Volatile and memory-order qualifiers (and their scopes) read and write the same words here: both
# tiers do one memory instruction for every lane before the next (the passes below), which is at
# least as strong an order as any of them asks for.
ORDERINGS = {"volatile", "relaxed", "cta", "cluster", "gpu", "sys"}
LOAD_FLAGS = {"global", "nc", "ca", "cg", "cs", "lu", "cv", "acquire"} | ORDERINGS   # cache hints: the same value
STORE_FLAGS = {"global", "wb", "cg", "cs", "wt", "release"} | ORDERINGS
ATOMIC_FLAGS = {"global", "gpu", "sys", "cta", "relaxed", "acquire", "release", "acq_rel"}  # one at a time here
SPACES = {"global": "global", "shared": "shared", "shared::cta": "shared"}   # the flag naming each space taken
FIRST_FAULT = ["outcome[0] = k", "return"]                     # check: nothing changed yet


def only_item(operand):
    """`{%r1}`, a brace of one register (as Triton writes every scalar load), is that register."""
    return operand.items[0] if isinstance(operand, Vec) and len(operand.items) == 1 else operand


def widened(value: str, type_name: str) -> str:
    """A 32-bit value loaded into a 64-bit register: sign-extended for .s32, else zero-extended
    (ptx/types.to_storage's extension)."""
    return f"np.uint64(s32({value}))" if type_name == "s32" else f"np.uint64({value})"


def is_memory(ins) -> bool:
    """An instruction this module serves (or refuses): ld other than of a parameter, st, atom, red."""
    return (ins.opcode == "ld" and "param" not in ins.flags) or (ins.opcode in WRITES and "param" not in ins.flags)


def _add(type_name, old, b, c):
    if type_name == "f32":
        return f"bits_of(f32_of({old}) + f32_of({b}))"         # one IEEE single add (RN), as NumPy's
    return None if type_name == "f64" else f"add{BITS[type_name]}({old}, {b})"


def _min_max(smaller: bool):
    def update(type_name, old, b, c):
        if type_name[0] not in "us":
            return None                                         # float min/max: see the module docstring
        if type_name[0] == "s":
            less = f"s32({b}) < s32({old})" if BITS[type_name] == 32 else f"signed_less64({b}, {old})"
        else:
            less = f"{b} < {old}"
        return f"({b} if {less} else {old})" if smaller else f"({old} if {less} else {b})"
    return update


def _bitwise(symbol: str):
    return lambda type_name, old, b, c: f"({old} {symbol} {b})"


# semantics/atomics.RMW's operations on one lane's register bits: (PTX type, old, b, c) -> the new
# word's expression, or None for a type the compiled tier leaves to NumPy. An operation missing
# here runs on NumPy; tests/machine/test_codegen.py checks that every key is one of RMW's.
LANE_RMW = {
    "add": _add,
    "min": _min_max(True),
    "max": _min_max(False),
    "inc": lambda t, old, b, c: f"(np.uint32(0) if {old} >= {b} else add32({old}, np.uint32(1)))"
                                if t == "u32" else None,
    "dec": lambda t, old, b, c: f"({b} if {old} == np.uint32(0) or {old} > {b} else sub32({old}, np.uint32(1)))"
                                if t == "u32" else None,
    "cas": lambda t, old, b, c: f"({c} if {old} == {b} else {old})",
    "exch": lambda t, old, b, c: b,
    "and": _bitwise("&"),
    "or": _bitwise("|"),
    "xor": _bitwise("^"),
}


def _rmw(op: str, type_name: str, old: str, b: str, c: str) -> str | None:
    """The new word of atomic <op> on PTX type <type_name> for one lane, or None (NumPy's)."""
    update = LANE_RMW.get(op)
    if update is None or type_name in ("f32", "f64") and op not in ("add", "min", "max"):
        return None
    return update(type_name, old, b, c)


class GlobalMemory:
    """The passes of one block's global accesses (a BlockSource's `memory`), generated one
    phase at a time by the BlockSource: ('check', None), ('late', t), ('do', t), ('run', None)."""

    def __init__(self, source):
        self.source = source
        self.instructions = [ins for ins in source.block.instructions if is_memory(ins)]
        writes = [t for t, ins in enumerate(self.instructions) if ins.opcode in WRITES]
        self.first_write = writes[0] if writes else None
        self.writes = writes
        self.bits = [BITS.get(ins.type, 0) for ins in self.instructions]
        self.counts = [access.vector_count(ins) for ins in self.instructions]   # .v2/.v4: elements a lane
        self.spaces = [next((SPACES[f] for f in ins.flags if f in SPACES), None) for ins in self.instructions]
        self.uses_shared = "shared" in self.spaces
        self.next = 0                   # the memory instruction the phase being generated is at

    @property
    def passes(self) -> list[int]:
        """The memory instructions that get passes of their own (from the first write on)."""
        return [] if self.first_write is None else list(range(self.first_write, len(self.instructions)))

    # ------------------------------------------------------------ one memory instruction

    def access(self, ins, guard) -> bool:
        """Generate memory instruction `ins` for the current phase; whether the phase stops here."""
        src = self.source
        t = self.next
        self.next += 1
        phase, at = src.phase
        bits = self._check_form(ins)
        space = self.spaces[t]
        count = self.counts[t]
        words = f"{'mem' if space == 'global' else 'shared'}{bits}"
        kind = "load" if ins.opcode == "ld" else ("store" if ins.opcode == "st" else "atomic")
        operands = [src.operand(o, ins.type, wider=kind == "store") for o in self._values(ins)] \
            if kind != "load" else []
        before_writes = self.first_write is None or t < self.first_write
        if phase == "check" and before_writes:                                  # a load before any write
            address, slot = self._address(ins, bits, space, guard, FIRST_FAULT, count=count)
            self._guarded([f"saved_{t}[k, {e}] = {words}[{slot} + {e}]" for e in range(count)], guard)
            return self._result(ins, t, guard)
        if phase == "check" or (phase == "late" and t == at):                   # the write or access to check
            fault = ["outcome[0] = k", f"outcome[1] = {t}", *self._rollback(t), "return"] \
                if phase == "late" else FIRST_FAULT
            address, slot = self._address(ins, bits, space, guard, fault, count=count)
            if kind == "store":                 # the words before any lane's store
                self._guarded([f"seen_{t}[k, {e}] = np.uint64({words}[{slot} + {e}])" for e in range(count)], guard)
            return True
        if phase == "do" and t == at:
            address, slot = self._address(ins, bits, space, guard, None, count=count)
            memory = f"{words}[{slot}]"
            if kind == "load":
                self._guarded([f"saved_{t}[k, {e}] = {words}[{slot} + {e}]" for e in range(count)], guard)
                return True
            body = [f"slots_{t}[k] = {slot}", f"did_{t}[k] = True"]
            if space == "global":               # initcheck's flags: global memory only
                body += [f"for byte in range({bits // 8 * count}):",
                         f"    initialized[{slot} * {bits // 8} + byte] = True"]
            if kind == "store":
                body[:0] = [f"{words}[{slot} + {e}] = {value}" for e, value in enumerate(operands)]
            else:
                old = src.fresh("old")
                update = _rmw(self._operation(ins), ins.type, old, operands[0],
                              operands[1] if len(operands) > 1 else "None")
                if update is None:
                    raise NotCovered(f"{'.'.join((ins.opcode,) + ins.mods)} has no exact compiled form")
                body = [f"{old} = {memory}", f"{memory} = {update}", f"saved_{t}[k, 0] = {old}",
                        f"seen_{t}[k, 0] = np.uint64({old})"] + body
            self._guarded(body, guard)
            return True
        if kind != "store":                     # done in an earlier pass: its value, per lane
            return self._result(ins, t, guard)
        return False

    @staticmethod
    def _values(ins) -> list:
        """The operands a store writes (a vector's elements) or an atomic takes."""
        if ins.opcode == "st" and isinstance(ins.srcs[1], Vec):
            return list(ins.srcs[1].items)
        return list(ins.srcs[1:])

    def _rollback(self, t: int) -> list[str]:
        """Lines that put back every word the writes before memory instruction t changed: each
        write's words as they were before it (seen_), the latest write first and, within one, the
        last lane first, so that memory is as it was before the block (an atomic's lanes saw each
        other's updates: the first lane's old word is the word before the instruction)."""
        lines = []
        for w in reversed([w for w in self.writes if w < t]):
            words = f"{'mem' if self.spaces[w] == 'global' else 'shared'}{self.bits[w]}"
            lines += ["for back in range(n - 1, -1, -1):", f"    if did_{w}[back]:",
                      *[f"        {words}[slots_{w}[back] + {e}] = np.uint{self.bits[w]}(seen_{w}[back, {e}])"
                        for e in range(self.counts[w])]]
        return lines

    def _result(self, ins, t: int, guard) -> bool:
        dst = only_item(ins.dsts[0])
        if ins.opcode == "ld" and isinstance(dst, Vec):                   # each element into its register
            for e, item in enumerate(dst.items):
                if not isinstance(item, Sink):
                    self.source.write(item, f"saved_{t}[k, {e}]", guard)
            return False
        if ins.opcode in ("ld", "atom") and not isinstance(dst, Sink):
            value = f"saved_{t}[k, 0]"
            if self.source.bits(dst.name) > self.bits[t]:
                value = widened(value, ins.type)
            self.source.write(dst, value, guard)
        return False

    def _guarded(self, lines: list[str], guard):
        self.source.lines.extend(lines if guard is None else [f"if {guard}:"] + [f"    {line}" for line in lines])

    def _operation(self, ins) -> str:
        return next(m for m in ins.mods if m in ATOMIC_OPS)

    def _check_form(self, ins) -> int:
        """The access's bits, or NotCovered for a form the compiled tier does not take."""
        src = self.source
        bits = BITS.get(ins.type)
        name = ".".join((ins.opcode,) + ins.mods)
        spaces = [f for f in ins.flags if f in SPACES]
        count = access.vector_count(ins)
        if bits is None or count > 4 or count > 1 and ins.opcode not in ("ld", "st") or len(spaces) != 1:
            raise NotCovered(f"{name} (compiled: global and shared words and .v2/.v4 loads and stores only)")
        if ins.opcode == "ld":
            allowed, dst = LOAD_FLAGS, only_item(ins.dsts[0]) if len(ins.dsts) == 1 else None
            if count > 1:
                if not isinstance(dst, Vec) or len(dst.items) != count or not all(
                        isinstance(d, Sink) or isinstance(d, Reg) and src.bits(d.name) == bits for d in dst.items):
                    raise NotCovered(f"{name} into {dst}")
                dst = Sink()
        elif ins.opcode == "st":
            allowed, dst = STORE_FLAGS, Sink()
            if len(ins.srcs) != 2 or count > 1 and (not isinstance(ins.srcs[1], Vec) or len(ins.srcs[1].items) != count):
                raise NotCovered(f"st form {ins}")
        else:
            op = next((m for m in ins.mods if m in ATOMIC_OPS), None)
            if op is None or len(ins.srcs) != (3 if op == "cas" else 2):
                raise NotCovered(f"{name} (compiled: scalar atomics only)")
            allowed, dst = ATOMIC_FLAGS | {op}, ins.dsts[0] if ins.opcode == "atom" else Sink()
            if _rmw(op, ins.type, "o", "b", "c") is None:
                raise NotCovered(f"{name} has no exact compiled form")
        if ins.flags - allowed - set(spaces) - {f"v{count}"}:
            raise NotCovered(f"{name} (compiled: {'/'.join(sorted(allowed))} only)")
        widening = ins.opcode == "ld" and bits == 32      # ld may name a wider register (PTX)
        if not isinstance(dst, (Reg, Sink)) or isinstance(dst, Reg) and src.bits(dst.name) != bits \
                and not (widening and src.bits(dst.name) == 64):
            raise NotCovered(f"{name} into {dst} of another width")
        return bits

    def _address(self, ins, bits: int, space: str, guard, fault: list[str] | None,
                 count: int = 1) -> tuple[str, str]:
        """(address, word slot) locals of [register+offset], the first of `count` words; checked
        (aligned to and inside for all of them) unless fault is None (the lines that stop the pass
        at a bad address)."""
        src = self.source
        addr = ins.srcs[0]
        if isinstance(addr, Addr) and isinstance(addr.base, Sym):     # [variable+offset]: the address a mov gives
            base = src.symbol_address(addr.base, "u64")
        else:
            if not isinstance(addr, Addr) or not isinstance(addr.base, Reg) or addr.base.name not in src.fn.regs:
                raise NotCovered(f"{ins.opcode} form {ins}")
            base_bits = src.bits(addr.base.name)
            if base_bits not in (32, 64) or space == "global" and base_bits != 64:
                raise NotCovered(f"{ins.opcode} at [{addr.base.name}]: a {base_bits}-bit address")
            base = src.operand(addr.base, "u64" if base_bits == 64 else "u32")
        address, slot = src.fresh("address"), src.fresh("slot")
        size = bits // 8 * count
        shift = 3 if bits == 64 else 2
        src.lines.append(f"{address} = add64({base}, np.uint64({addr.offset & (2**64 - 1):#x}))")
        if space == "shared":
            offset = src.fresh("offset")
            src.lines.append(f"{offset} = shared_offset({address})")
            src.lines.append(f"{slot} = (np.int64(cta[i]) * shared_size + np.int64({offset})) >> {shift}")
            if fault is not None:
                check = [f"if not shared_inside({offset}, {size}, shared_used):", *[f"    {line}" for line in fault]]
                self._guarded(check, guard)
            return address, slot
        src.lines.append(f"{slot} = np.int64(({address} - GLOBAL_BASE) >> np.uint64({shift}))")
        if fault is not None:
            offset = src.fresh("offset")
            check = [f"{offset} = {address} - GLOBAL_BASE",
                     f"if ({address} & np.uint64({size - 1})) != np.uint64(0) or {offset} < allocation_start "
                     f"or {offset} + np.uint64({size}) > allocation_end:",
                     f"    found = find_allocation(starts, ends, heap_bytes, {address}, {size})",
                     "    if found < 0:",
                     *[f"        {line}" for line in fault],
                     "    allocation_start = starts[found]",
                     "    allocation_end = ends[found]"]
            self._guarded(check, guard)
        return address, slot

    # ------------------------------------------------------------ the function

    def function_source(self, phases: list, args: str) -> str:
        """block_<gid>(idx, pc, count, guard_counts, <launch>, changes_only, outcome, <registers>).
        outcome[0]: the first lane (position in idx) whose address is bad, or -1; outcome[1]: its
        memory instruction when it stopped a late pass, after putting back what the earlier passes
        wrote (-1: the check pass, nothing changed); outcome[2]: the writes that changed memory (asked while
        changes_only). phases: ((phase, t), per-lane lines) in order."""
        n_mem = len(self.instructions)
        scratch = [f"saved_{t} = np.empty((n, {self.counts[t]}), dtype=np.uint{self.bits[t]})" for t in range(n_mem)
                   if self.instructions[t].opcode != "st"]
        for t in self.writes:
            scratch += [f"seen_{t} = np.empty((n, {self.counts[t]}), dtype=np.uint64)",
                        f"slots_{t} = np.empty(n, dtype=np.int64)", f"did_{t} = np.zeros(n, dtype=np.bool_)"]
        lines = ["n = idx.shape[0]", *scratch, "allocation_start = np.uint64(1)", "allocation_end = np.uint64(0)"]
        for (phase, t), body in phases:
            lines += ["for k in range(n):", "    i = idx[k]", *[f"    {line}" for line in body]]
            if phase == "do" and t in self.writes:
                words = f"{'mem' if self.spaces[t] == 'global' else 'shared'}{self.bits[t]}"
                differs = " or ".join(f"seen_{t}[k, {e}] != np.uint64({words}[slots_{t}[k] + {e}])"
                                      for e in range(self.counts[t]))
                lines += ["if changes_only:",
                          "    for k in range(n):",
                          f"        if did_{t}[k] and ({differs}):",
                          "            outcome[2] += 1",
                          "            break"]
        gid = self.source.block.gid
        return (f"@njit(cache=True, nogil=True)\n"
                f"def block_{gid}(idx, pc, count, guard_counts, {LAUNCH_ARGUMENTS}, changes_only, outcome"
                f"{', ' if args else ''}{args}):\n"
                + "".join(f"    {line}\n" for line in lines))


LAUNCH_ARGUMENTS = ("mem32, mem64, initialized, starts, ends, heap_bytes, param32, param64, "
                    "tid, ctaid, dims, shared32, shared64, cta, shared_size, shared_used")
NO_SHARED = np.zeros(0, dtype=np.uint64)


def launch_arguments(ctx, uses_shared: bool) -> tuple:
    """LAUNCH_ARGUMENTS of a batch: the heap's typed views and live allocations (as the round loop
    reads them), the parameter buffer, the threads' coordinates, and, for a block that uses it,
    the batch's shared memory (CTA slot c's at c * shared_size, shared_used bytes of it usable)."""
    heap = ctx.memory.buffer
    starts, ends = ctx.memory._index()
    shared = ctx.shared if uses_shared else NO_SHARED
    return (heap.view(np.uint32), heap.view(np.uint64), ctx.memory.initialized, starts, ends,
            np.uint64(len(heap)), ctx.params.view(np.uint32), ctx.params.view(np.uint64), ctx.tid,
            ctx.ctaid, np.array([*ctx.block, *ctx.grid], dtype=np.uint32), shared.view(np.uint32),
            shared.view(np.uint64), ctx.cta, np.int64(ctx.shared_size), np.int64(ctx.shared_used))
