"""The SASS IR: what nvdisasm prints, as data a SASS executor and the counters can use.

One SassModule per cubin; one SassFunction per `.text.<name>` section; each a
list of SassInstruction (in address order) and the basic blocks over them.
Operands keep their text (for listings) next to the parsed parts (for
execution). Control codes are decoded from the instruction's top bits: on
sm_70 and later every 128-bit instruction carries the scheduling decisions
ptxas made (how long to stall, which scoreboard its result sets, which ones it
waits on), which is what a timing model needs and no listing shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import WarpsimError
from ..semantics.clock import SPECIAL_REGISTER_LATENCY, branch_cycles, issue_cycles

SPECIAL_REGISTER_READS = ("S2R", "S2UR")     # reads through a scoreboard (CS2R is fixed-latency)

__all__ = ["Operand", "ControlCodes", "SassInstruction", "BasicBlock", "SassFunction", "SassModule"]


@dataclass(frozen=True)
class Operand:
    """One operand. `kind` is one of OPERAND_KINDS in disasm.py:

    reg (R0..R255, RZ), ureg (UR0.., URZ), pred (P0..P6, PT), upred (UP0.., UPT),
    barrier (B0.. of BSSY/BSYNC), scoreboard (SB0.. of DEPBAR), special (SR_TID.X ...),
    imm (int or float `value`), const (c[bank][offset], `bank`/`offset`, `parts`
    holds a register index if any), mem ([R2.64+0x10]; `parts` = registers in the
    address, `offset` = the immediate, `descriptor` = UR of desc[UR4][...]),
    label (branch target `(.L_x_3)`, `name` = the label), other (kept as text).
    """

    kind: str
    text: str
    name: str = ""                 # 'R2', 'RZ', 'UP0', 'SR_TID.X', '.L_x_3'
    number: int | None = None      # register/predicate index; None for RZ/PT/URZ (the zero/true ones)
    value: int | float | None = None   # immediates
    negate: bool = False           # -R2 (arithmetic negation)
    absolute: bool = False         # |R2|
    invert: bool = False           # !P0 (predicate) or ~R2 (bitwise)
    reuse: bool = False            # .reuse: the operand-reuse cache keeps this source
    suffixes: tuple = ()           # other dotted suffixes: ('64',) in R2.64, ('H1',), ('X4',)
    bank: int | None = None        # const: c[bank][...]
    offset: int | None = None      # const: byte offset; mem: immediate displacement
    parts: tuple = ()              # const/mem: register Operands inside the brackets
    descriptor: "Operand | None" = None   # mem: desc[UR4][...] memory descriptor

    @property
    def is_zero_register(self) -> bool:
        return self.kind in ("reg", "ureg") and self.number is None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ControlCodes:
    """The scheduling bits of one instruction (bits 105-125 of the 128-bit word).

    stall: cycles before the warp may issue its next instruction (0..15).
    yield_bit: the raw yield-hint bit (public write-ups disagree on its polarity).
    write_barrier / read_barrier: the scoreboard (0..5) this instruction's result /
    its source-operand read releases, None when it sets none (encoded 7).
    wait_mask: bit k set = wait until scoreboard k is released before issuing.
    reuse_mask: bit k set = keep source operand slot k in the reuse cache.
    """

    stall: int
    yield_bit: int
    write_barrier: int | None
    read_barrier: int | None
    wait_mask: int
    reuse_mask: int

    def text(self) -> str:
        """CuAssembler-like '[B0-----:R-:W1:Y:S04]' (Y shown when the yield bit is 0)."""
        waits = "".join(str(k) if self.wait_mask >> k & 1 else "-" for k in range(6))
        read = "-" if self.read_barrier is None else str(self.read_barrier)
        write = "-" if self.write_barrier is None else str(self.write_barrier)
        return f"[B{waits}:R{read}:W{write}:{'-' if self.yield_bit else 'Y'}:S{self.stall:02d}]"


@dataclass(frozen=True)
class SassInstruction:
    """One SASS instruction as ptxas placed it.

    `guard` is the predicate operand of `@P0`/`@!P0` (None when unguarded),
    `opcode` 'IMAD' and `mods` ('WIDE', 'U32') for IMAD.WIDE.U32, `ptx_line` the
    line of the PTX text it came from (warpsim's own PTX line numbers),
    `source` (file, line) of the CUDA/Python source, `encoding` the two 64-bit
    words (low, high) of the instruction.
    """

    offset: int
    opcode: str
    mods: tuple
    operands: tuple
    guard: Operand | None
    text: str
    control: ControlCodes | None = None
    encoding: tuple | None = None
    ptx_line: int | None = None
    source: tuple | None = None      # (file, line)
    branch_targets: tuple = ()       # an indirect branch's possible targets (nvdisasm's BRANCH_TARGETS labels)

    @property
    def full_opcode(self) -> str:
        return ".".join((self.opcode,) + self.mods)

    @property
    def is_guarded(self) -> bool:
        """Guarded by a predicate that can be false (`@PT` is no guard, `@!PT` never runs)."""
        return self.guard is not None and not (self.guard.name in ("PT", "UPT") and not self.guard.invert)

    @property
    def is_conditional(self) -> bool:
        """Guarded, or with a predicate operand, a further condition of a branch or an exit
        (`@!P0 EXIT P1` ends the lanes where !P0 and P1 hold: ptxas's `if (a && b) return;`):
        as a block's last instruction, it lets the other lanes fall through."""
        return self.is_guarded or any(op.kind in ("pred", "upred") for op in self.operands)

    @property
    def branch_target(self) -> str | None:
        """The label of a branch/BSSY/CALL target, if the instruction names one."""
        for operand in self.operands:
            if operand.kind == "label":
                return operand.name
        return None


@dataclass
class BasicBlock:
    """Instructions [start, end) of a function's list; the jump-target labels of its first one."""

    index: int
    start: int
    end: int
    labels: tuple = ()
    successors: tuple = ()          # block indices; fall-through first
    reachable: bool = True          # from the entry (ptxas pads functions with unreachable BRA/NOP)
    ptx_lines: tuple = ()           # sorted distinct PTX lines of its instructions
    source_lines: tuple = ()        # sorted distinct (file, line)

    def instructions(self, function: "SassFunction") -> list:
        return function.instructions[self.start:self.end]


@dataclass
class SassFunction:
    """One `.text.<name>` section: a kernel (entry) or a device function ptxas kept apart."""

    name: str
    instructions: list
    labels: dict                     # label -> instruction index
    blocks: list = field(default_factory=list)
    entry: bool = True
    index_of_offset: dict = field(default_factory=dict)   # byte offset -> instruction index

    def at(self, offset: int) -> SassInstruction:
        return self.instructions[self.index_of_offset[offset]]

    def block_of(self, index: int) -> BasicBlock:
        """The block that holds instruction `index` (blocks are sorted by start)."""
        low, high = 0, len(self.blocks) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self.blocks[middle].start <= index:
                low = middle
            else:
                high = middle - 1
        return self.blocks[low]

    def clock_cycles(self, index: int) -> int:
        """The cycles instruction `index` holds a lone warp's issue on the clock kernels read
        (semantics/clock.py): its stall count, and a BRA's taken-branch refetch where it is taken by
        rule."""
        ins = self.instructions[index]
        cycles = issue_cycles(ins.control.stall if ins.control is not None else None)
        if ins.opcode == "BRA":
            cycles += branch_cycles(index, self.labels.get(ins.branch_target), ins.is_conditional)
        return cycles

    def block_clock_cycles(self, start: int, end: int) -> int:
        """The cycles instructions [start, end) take a lone warp on the clock: each one's clock_cycles,
        and the wait for an S2R's special register (SPECIAL_REGISTER_LATENCY) where a later one of
        them waits on its scoreboard: a loop on the 32-bit clock() reads SR_CLOCKLO so, and waits for
        it before the compare. (Other scoreboard waits, on memory, are the timing model's to tell.)"""
        now, ready = 0, {}
        for index in range(start, end):
            control = self.instructions[index].control
            if control is not None:
                for barrier in range(6):
                    if control.wait_mask >> barrier & 1 and barrier in ready:
                        now = max(now, ready.pop(barrier))
                if self.instructions[index].opcode in SPECIAL_REGISTER_READS and control.write_barrier is not None:
                    ready[control.write_barrier] = now + SPECIAL_REGISTER_LATENCY
            now += self.clock_cycles(index)
        return now

    def opcodes(self) -> set:
        return {ins.opcode for ins in self.instructions}

    def full_opcodes(self) -> set:
        return {ins.full_opcode for ins in self.instructions}


@dataclass
class SassModule:
    """The SASS of one cubin, with where it came from."""

    functions: dict                  # name -> SassFunction, in cubin order
    arch: str = ""
    ptxas_version: str = ""
    ptx_text: str = field(default="", repr=False)   # the PTX ptxas read ('' for a cubin without it)
    notes: list = field(default_factory=list)
    cubin: bytes = field(default=b"", repr=False)

    @property
    def kernel_names(self) -> list:
        return [name for name, fn in self.functions.items() if fn.entry]

    def kernel(self, name: str) -> SassFunction:
        """The kernel or device function `name`; an error naming the ones there are otherwise."""
        try:
            return self.functions[name]
        except KeyError:
            raise WarpsimError(f"no kernel '{name}' in the SASS (kernels: "
                               f"{', '.join(self.kernel_names) or 'none'})") from None
