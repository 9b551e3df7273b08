"""The SASS opcode table: one entry per opcode, filled by the module of its family.

An entry says which family the opcode belongs to, which modifiers its
semantics handle, the pipe of an SM sub-partition it issues to (the timing
model's map is derived from the entries, so an opcode is declared in one
place), and how to build the step that runs one instance of it: a function
`build(ins) -> Step`. Building happens once per instruction when a
kernel's SASS is loaded, so decoding (operand kinds, modifiers, widths) is
never repeated while the kernel runs, and an instruction that cannot be built
is reported with all the others before anything runs (SassUnsupported).

    @semantics("POPC", "UPOPC", family="integer", pipe=("mufu", "uniform"), doc="number of set bits")
    def popc(ins):
        return alu(ins, lambda a: popcount32(a), srcs=[u32(ins.operands[1])])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


# The pipes the timing model knows (timing/pipes.py costs them); 'uniform' is the uniform datapath
# (an issue slot only), 'branch' the control and branch unit (branches, convergence, scheduling hints).
PIPES = ("fp32", "fma", "fp16", "alu", "fp64", "mufu", "tensor", "shared", "global", "local", "constant",
         "special", "warp", "barrier", "branch", "uniform")


class Unsupported(Exception):
    """Raised by a builder: this instance (a modifier, an operand form) is not implemented."""


@dataclass
class OpcodeEntry:
    opcode: str
    family: str
    build: Callable                     # ins -> Step
    mods: frozenset | None              # modifiers the semantics handle (None: any)
    pipe: str                           # one of PIPES: what the timing model charges it to
    mod_pipes: dict = field(default_factory=dict)   # modifier -> the pipe of the instances that carry it
    doc: str = ""
    warp_level: bool = False            # reads other lanes (SHFL, VOTE, REDUX, MATCH)


# What a step's lanes wait for before it (Step.wait's first item), as the program's wait_kind codes;
# poll: the step's own test says which lanes may issue (UCGABAR_WAIT: their cluster's phase completed)
NO_WAIT, WAIT_BSYNC, WAIT_WARPSYNC, WAIT_BAR, WAIT_POLL = 0, 1, 2, 3, 4
WAIT_KINDS = {"bsync": WAIT_BSYNC, "warpsync": WAIT_WARPSYNC, "bar": WAIT_BAR, "poll": WAIT_POLL}


@dataclass
class Step:
    """One decoded instruction: `run(state, group)` executes it for the lanes of group.

    A control instruction (BRA, EXIT, CALL, RET, BRX) has `target`: for the
    lanes that take it (guard true) the next instruction index (-1 = exited);
    the others fall through. `wait` marks where lanes wait for each other
    (BSYNC, WARPSYNC, BAR): the engine lets them issue only together.
    """
    ins: object
    run: Callable
    memory: tuple = field(default_factory=tuple)    # (space, kind, bytes per lane) if it accesses memory
    wait: tuple | None = None       # where lanes wait before it: ('bsync', k), ('warpsync', mask), ('bar', id, count),
                                    # ('poll', test): lanes issue where test(state, group) holds
    target: Callable | None = None  # control: (state, group of lanes that take it) -> next index per lane
    reads_guard: bool = False       # the step reads its own guard (BRA.U.ANY: the warp's lanes branch together)
    jump: int | None = None         # a branch whose lanes that take it all go to this index (a plain BRA)


OPCODES: dict = {}
PIPE_ONLY: dict = {}    # opcode -> pipe, for opcodes the GPU issues that the executor does not run


def _pipes_per_opcode(opcodes, pipe, where: str) -> dict:
    """{opcode: pipe} from one pipe for all, or one per opcode in the same order; an error at import
    names the opcode whose pipe is missing or unknown."""
    pipes = (pipe,) * len(opcodes) if isinstance(pipe, str) else tuple(pipe)
    if len(pipes) != len(opcodes):
        raise ValueError(f"{where}: {len(opcodes)} opcodes {opcodes} but {len(pipes)} pipes {pipes}")
    for opcode, name in zip(opcodes, pipes):
        if name not in PIPES:
            raise ValueError(f"{where}: opcode {opcode} has pipe {name!r}, not one of {PIPES}")
        if opcode in OPCODES or opcode in PIPE_ONLY:
            raise ValueError(f"{where}: opcode {opcode} is declared twice")
    return dict(zip(opcodes, pipes))


def semantics(*opcodes, family: str, pipe, mods=None, doc: str = "", warp_level: bool = False,
              mod_pipes: dict | None = None):
    """Register `build` for each opcode (the decorator the family modules use).

    `pipe` is one name of PIPES for every opcode, or a tuple with one per opcode in order
    (`pipe=("alu", "uniform")` for an instruction and its uniform-datapath twin). `mod_pipes`:
    {modifier: pipe} for the instances a modifier sends elsewhere (HFMA2.MMA: the FP32 pipe).
    """
    pipes = _pipes_per_opcode(opcodes, pipe, f"@semantics of {family}")
    mod_pipes = dict(mod_pipes or {})
    for mod, name in mod_pipes.items():
        if name not in PIPES:
            raise ValueError(f"@semantics of {family}: modifier .{mod} has pipe {name!r}, not one of {PIPES}")

    def register(build):
        for opcode in opcodes:
            OPCODES[opcode] = OpcodeEntry(opcode, family, build, None if mods is None else frozenset(mods),
                                          pipes[opcode], mod_pipes, doc, warp_level)
        return build
    return register


def pipe_only(*opcodes, pipe):
    """Declare opcodes the executor does not run yet by their pipe, so the timing model still
    charges them where the GPU does (a kernel using one falls back to the PTX run for results)."""
    PIPE_ONLY.update(_pipes_per_opcode(opcodes, pipe, "pipe_only"))


def pipe_by_opcode() -> dict:
    """{opcode: pipe} for every SASS opcode warpsim knows: the executed ones and the pipe-only ones."""
    return {**PIPE_ONLY, **{opcode: entry.pipe for opcode, entry in OPCODES.items()}}


def pipes_by_modifier() -> dict:
    """{opcode: {modifier: pipe}} for the opcodes whose instances a modifier sends to another pipe."""
    return {opcode: entry.mod_pipes for opcode, entry in OPCODES.items() if entry.mod_pipes}


def build_step(ins) -> Step:
    """The Step for `ins`, or Unsupported naming what is missing."""
    entry = OPCODES.get(ins.opcode)
    if entry is None:
        raise Unsupported("unknown opcode")
    if entry.mods is not None:
        unknown = [m for m in ins.mods if m not in entry.mods]
        if unknown:
            raise Unsupported("modifier " + ", ".join("." + m for m in unknown))
    return entry.build(ins)


def coverage_rows() -> list:
    """(family, opcode, modifiers handled, doc) for every opcode, by family then name."""
    return sorted(((e.family, e.opcode, "any" if e.mods is None else " ".join(sorted(e.mods)) or "-", e.doc)
                   for e in OPCODES.values()))


def coverage_table() -> str:
    """The coverage table as Markdown (docs/sass.md prints it)."""
    lines = ["| family | opcode | modifiers | semantics |", "|---|---|---|---|"]
    for family, opcode, mods, doc in coverage_rows():
        lines.append(f"| {family} | {opcode} | {mods} | {doc} |")
    return "\n".join(lines)
