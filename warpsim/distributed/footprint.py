"""Which arrays a kernel loads, stores and updates atomically, read from its PTX before it runs.

A sharded launch is exact without watching every access when no CTA can see
another CTA's writes: the arrays the kernel loads are not the ones it stores
or updates atomically, and every array it updates atomically takes one
commutative operation whose old value nobody reads (then each shard's change
can be added, and-ed, ... into the start value, in any order). This module
finds, per global access of a kernel, the pointer argument (or module global
variable) its address is built from, by following registers from the
`ld.param` that reads each 64-bit argument through the arithmetic that
offsets it. Values loaded as 64-bit integers might be pointers of unknown
origin; other loaded values and 32-bit arguments are data (indices, counts).

The answer is per set of arguments an address is built from; `resolve` turns
it into heap allocations with the launch's argument values (two arguments may
point into one array, and a 64-bit argument that points nowhere is a count,
not a pointer, so `x + offset` with a size_t offset is x's array). A kernel
whose accesses cannot all be attributed (calls, pointers loaded from memory,
an address built from two pointers, bulk copies) gets `why`, and the launch
takes the path that watches every access (launch.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..machine.access import space_of
from ..machine.isa.atomics import operation_of
from ..metrics.counters import read_registers
from ..ptx.ir import Addr, Reg, Sym, Vec

INTEGER_64 = {"u64", "s64", "b64"}
OPAQUE = "opaque"                 # a 64-bit value loaded from memory: maybe a pointer of unknown origin
NOT_GLOBAL = ("shared", "local")  # addresses of shared or local variables
ATTRIBUTED = ("ld", "ldu", "st", "atom", "red")
IGNORED = ("prefetch", "prefetchu", "cvta", "isspacep", "discard", "applypriority", "createpolicy")


@dataclass
class KernelFootprint:
    """How the kernel's accesses use each address origin: a frozenset of the arguments
    (('param', name, byte offset)) or global variables (('var', name)) an address is built
    from; at launch exactly one of them must point into an array."""
    loads: set = field(default_factory=set)
    stores: set = field(default_factory=set)
    atomics: dict = field(default_factory=dict)    # origins -> {(op, type, old value read)}
    why: str = ""                                  # non-empty: some access cannot be attributed


@dataclass
class AllocationFootprint:
    """The same, per heap allocation (offset, size) of the launch."""
    loads: set = field(default_factory=set)
    stores: set = field(default_factory=set)
    atomics: dict = field(default_factory=dict)    # (offset, size) -> {(op, type, old value read)}

    def places(self) -> set:
        """Every array the kernel touches."""
        return self.loads | self.stores | set(self.atomics)


def kernel_footprint(program, kernel: str) -> KernelFootprint:
    """The kernel's footprint (computed once per program and kernel)."""
    cache = program.__dict__.setdefault("_shard_footprints", {})
    found = cache.get(kernel)
    if found is None:
        found = cache[kernel] = _footprint(program, program.module.functions[kernel])
    return found


def resolve(footprint: KernelFootprint, program, kernel: str, params: bytes, memory):
    """(AllocationFootprint, '') for this launch's arguments, or (None, why not)."""
    if footprint.why:
        return None, footprint.why
    offsets = program.param_offsets[kernel]
    live = sorted(memory.live.items())

    def allocation(origin):
        if origin[0] == "var":
            address = program.global_addresses.get(origin[1])
        else:
            start = offsets[origin[1]] + origin[2]
            address = int.from_bytes(params[start:start + 8], "little") if start + 8 <= len(params) else None
        return _containing(live, address, memory)

    def place_of(candidates):
        """The one array the candidates point into (the others are counts, not pointers)."""
        places = {place for place in map(allocation, candidates) if place is not None}
        if len(places) == 1:
            return places.pop(), ""
        named = " and ".join(sorted(str(origin[1]) for origin in candidates))
        return None, (f"an address is built from {named}, which point into no array" if not places else
                      f"an address is built from {named}, which point into different arrays")

    out = AllocationFootprint()
    for role in ("loads", "stores"):
        for candidates in getattr(footprint, role):
            place, why = place_of(candidates)
            if place is None:
                return None, why
            getattr(out, role).add(place)
    for candidates, uses in footprint.atomics.items():
        place, why = place_of(candidates)
        if place is None:
            return None, why
        out.atomics.setdefault(place, set()).update(uses)
    return out, ""


def _containing(live, address, memory):
    from ..machine.memory import GLOBAL_BASE
    if address is None or address < GLOBAL_BASE:
        return None
    offset = address - GLOBAL_BASE
    for start, size in live:
        if start <= offset < start + max(size, 1):
            return (start, size)
    return None


# ---------------------------------------------------------------- the analysis

def _footprint(program, fn) -> KernelFootprint:
    out = KernelFootprint()
    params = {p.name for p in fn.params}
    variables = program.module.variables
    origins: dict = {}
    changed = True
    while changed:                      # flow-insensitive: a register's origins over all its definitions
        changed = False
        for ins in fn.body:
            if ins.call is not None:
                out.why = f"PTX line {ins.line}: the kernel calls a function"
                return out
            produced = _produced(ins, origins, params, variables)
            for dst in _registers(ins.dsts):
                before = origins.get(dst, frozenset())
                after = before | produced
                if after != before:
                    origins[dst] = after
                    changed = True
    read = read_registers(fn)
    for ins in fn.body:
        why = _attribute(ins, origins, variables, read, out)
        if why:
            out.why = f"PTX line {ins.line} ({ins.mnemonic}): {why}"
            return out
    return out


def _produced(ins, origins, params, variables) -> frozenset:
    """The origins of what `ins` writes into its destination registers."""
    if ins.opcode in ("ld", "ldu"):
        address = ins.srcs[0] if ins.srcs else None
        wide = ins.type in INTEGER_64
        if isinstance(address, Addr) and isinstance(address.base, Sym) and address.base.name in params:
            offset = address.offset + address.base.offset
            return frozenset({("param", address.base.name, offset)}) if wide else frozenset()
        return frozenset({OPAQUE}) if wide else frozenset()
    if ins.opcode == "atom":
        return frozenset({OPAQUE}) if ins.type in INTEGER_64 else frozenset()
    found = set()
    for src in ins.srcs:
        for reg in _registers((src,)):
            found |= origins.get(reg, frozenset())
        base = src.base if isinstance(src, Addr) else src
        if isinstance(base, Sym):
            found |= _symbol_origin(base.name, params, variables)
    return frozenset(found)


def _symbol_origin(name, params, variables) -> set:
    variable = variables.get(name)
    if variable is not None:
        if variable.space == "global":
            return {("var", name)}
        return {"shared"} if variable.space == "shared" else {"local"}
    if name in params:
        return {OPAQUE}
    return {"local"}                    # a local depot or a function's own .local/.shared variable


def _attribute(ins, origins, variables, read, out) -> str:
    """Record a global access of `ins` in `out`; a reason when its address has no single origin."""
    op = ins.opcode
    addresses = [s for s in ins.srcs if isinstance(s, Addr)]
    if not addresses or op in IGNORED:
        return ""
    if op not in ATTRIBUTED:
        if op == "cp" and ins.mods[:1] == ("async",) and "bulk" not in ins.mods and len(addresses) == 2:
            origin = _origin_of(addresses[1], origins, variables)
            if origin is None:
                return "a copy's source address is a pointer of unknown origin"
            if origin not in NOT_GLOBAL:
                out.loads.add(origin)
            return ""
        return "an access to memory that sharding by arrays does not follow"
    space = space_of(ins)
    if space not in ("global", "generic"):
        return ""
    origin = _origin_of(addresses[0], origins, variables)
    if origin is None:
        return "the address is a pointer of unknown origin (loaded from memory, or none)"
    if origin in NOT_GLOBAL:
        return "" if space == "generic" else "a global access through a shared or local address"
    if op in ("ld", "ldu"):
        out.loads.add(origin)
    elif op == "st":
        out.stores.add(origin)
    else:
        dst = ins.dsts[0] if op == "atom" and ins.dsts else None
        old_read = isinstance(dst, Reg) and dst.name in read
        out.atomics.setdefault(origin, set()).add((operation_of(ins), ins.type, old_read))
    return ""


def _origin_of(address: Addr, origins, variables):
    """The arguments or variables an address is built from (frozenset), NOT_GLOBAL's name for a
    shared or local one, or None (a pointer of unknown origin, or none at all)."""
    base = address.base
    if isinstance(base, Sym):
        found = frozenset(_symbol_origin(base.name, (), variables))
    else:
        found = origins.get(base, frozenset()) if isinstance(base, Reg) else frozenset()
    if OPAQUE in found or not found:
        return None
    places = found - set(NOT_GLOBAL)
    if not places:
        return next(iter(found)) if len(found) == 1 else None
    return frozenset(places) if places == found else None


def _registers(operands) -> list:
    regs = []
    for operand in operands:
        if isinstance(operand, Reg):
            regs.append(operand)
        elif isinstance(operand, Addr) and isinstance(operand.base, Reg):
            regs.append(operand.base)
        elif isinstance(operand, Vec):
            regs.extend(_registers(operand.items))
    return regs
