"""Calls into the CUDA device runtime: `LEPC` and `CALL.ABS.NOINC` to vprintf, malloc, free, __assertfail
and cudaGraphSetConditional.

ptxas calls a function the cubin does not define (vprintf) through its address, which the
driver writes into a constant-bank slot (an R_CUDA_64 relocation of the symbol):

    LDC.64 R10, c[0x4][R10]      ; vprintf's address
    MOV R4, ... ; MOV R5, ...    ; the format string (a generic address)
    IADD3 R6, ... ; IMAD.X R7, ...   ; the argument buffer on the thread's stack (generic)
    LEPC R20, `(.L_x_0)          ; where the callee returns to: the instruction after the call
    CALL.ABS.NOINC R10

or, for a function of cudadevrt in code built with -rdc=true, by name: `CALL.ABS.NOINC
`(cudaGraphSetConditional)`, its return address put in R20:R21 by two MOVs. The executor gives
each device-runtime function it runs an address no memory has (DEVICE_FUNCTIONS,
written into those slots by launch.constant_banks); a call of one, by address or by name, runs
it for the calling lanes in thread order, as the PTX machine's builtins do (semantics/printf.py
formats vprintf's text; machine/graph_conditions.py keeps the conditional values; malloc and free
take the device's memory as machine/isa/builtins.py does), leaves its result in R4 (R4:R5 for a
pointer), and goes on after the call, where the return address points. A call to any other
address is an illegal address, reported as a fault of the lane.
"""

from __future__ import annotations

import numpy as np

from ...machine.graph_conditions import conditions
from ...machine.isa.builtins import device_free, device_malloc
from ...semantics import printf
from ..ir import Operand
from .access import fault, resolve
from .operands import U32, U64, dest, source
from .table import Step, Unsupported, semantics

FORMAT, ARGUMENTS, RESULT = 4, 6, 4          # R4:R5, R6:R7 in; R4 out (the ABI's first registers)
HANDLE, VALUE = 4, 6                         # cudaGraphSetConditional(R4:R5, R6)
RESULT_REGISTER = Operand("reg", f"R{RESULT}", f"R{RESULT}", RESULT)


def calls_through_register(ins) -> bool:
    """`CALL.ABS Rn`: a call of a function whose address the driver relocates (the device runtime)."""
    return ins.opcode == "CALL" and "ABS" in ins.mods and ins.branch_target is None


def refused_calls(program, image) -> list:
    """[(opcode, why)] for a kernel that calls through a register while its module relocates the
    address of a device-runtime function the executor does not run: the module's function
    addresses share one constant bank, so which of them the kernel calls is not known before it
    runs, and the kernel is refused rather than fail halfway."""
    missing = [name for name in image.called_functions if not device_function_address(name)]
    if not missing or not any(calls_through_register(ins) for ins in program.instructions):
        return []
    return [("CALL.ABS", f"a call of {name} (CUDA device runtime), which the SASS executor does not run")
            for name in missing]


def device_function_address(symbol: str) -> int:
    """The address a relocated slot of `symbol` holds: a device-runtime function's, else 0."""
    return DEVICE_FUNCTIONS[symbol][0] if symbol in DEVICE_FUNCTIONS else 0


def _pair(st, g, first: int) -> np.ndarray:
    return st.R[first][g.sel].astype(U64) | st.R[first + 1][g.sel].astype(U64) << U64(32)


def _lane_reader(st, ins, g, k: int):
    """read(address, nbytes) -> bytes of generic memory as lane k of group g sees it."""
    lane = np.zeros(g.n, dtype=bool)
    lane[k] = True
    one = g.subset(lane)

    def read(address: int, nbytes: int) -> bytes:
        (_, space, _), = resolve(st, ins, one, "generic", np.array([address], dtype=U64), 1)
        start = int(space.offsets[0])
        return space.array[start:start + nbytes].tobytes()
    return read


def _vprintf(st, ins, g) -> tuple:
    """vprintf(format, arguments) of each lane, in thread order: the arguments read (R4)."""
    formats, arguments = _pair(st, g, FORMAT), _pair(st, g, ARGUMENTS)
    counts = np.zeros(g.n, dtype=U32)
    texts = []
    for k in range(g.n):
        read = _lane_reader(st, ins, g, k)
        text, counts[k] = printf.format_printf(read, printf.read_string(read, int(formats[k])), int(arguments[k]))
        texts.append(text)
    if st.printf_output is not None:
        st.printf_output.write("".join(texts))
        st.printf_output.flush()
    return counts, 32


def _malloc(st, ins, g) -> tuple:
    """malloc(size) of each lane, in thread order, from the device's memory: the pointer (R4:R5)."""
    return np.array([device_malloc(st.memory, int(size)) for size in _pair(st, g, 4)], dtype=U64), 64


def _free(st, ins, g) -> None:
    """free(pointer) of each lane, in thread order."""
    for pointer in _pair(st, g, 4):
        device_free(st.memory, int(pointer))


def _set_conditional(st, ins, g) -> None:
    """cudaGraphSetConditional(handle, value) of each lane, in thread order (the last one's value
    stays); a handle no running graph launch has open is an illegal address, as on a GPU."""
    handles, values = _pair(st, g, HANDLE), st.R[VALUE][g.sel]
    table = conditions(st.memory)
    closed = np.array([int(h) not in table.open for h in handles], dtype=bool)
    if closed.any():
        fault(st, ins, g, closed, handles, "cudaGraphSetConditional with a handle no running graph launch uses")
    for handle, value in zip(handles, values):
        table.values[int(handle)] = int(value)


def _assertfail(st, ins, g) -> None:
    """__assertfail(message, file, line, function, char size) of the first calling lane: the launch
    fails as the PTX machine's assert does (a TrapError naming the assertion: cudaErrorAssert)."""
    from .errors import SassTrap, lane_place, where
    read = _lane_reader(st, ins, g, 0)
    message, file, function = (printf.read_string(read, int(_pair(st, g, k)[0])) for k in (4, 6, 10))
    line = int(st.R[8][g.sel][0])
    cta, thread = lane_place(st, g, 0)
    raise SassTrap(f"{file}:{line}: {function}: Assertion `{message}` failed ({g.n} thread(s) of this group) "
                   f"by block {cta} thread {thread}: {where(ins)}", block=cta, thread=thread,
                   instruction=ins.text, source_line=f"{file.rsplit('/', 1)[-1]}:{line}")


# name -> (the address its relocated slot holds: one no allocation, window or host range reaches,
# above the 57-bit virtual address space; what a call of it runs)
DEVICE_FUNCTIONS = {
    "vprintf": (0xFFFF_FE00_0000_0000, _vprintf),
    "cudaGraphSetConditional": (0xFFFF_FE00_0000_0010, _set_conditional),
    "malloc": (0xFFFF_FE00_0000_0020, _malloc),
    "free": (0xFFFF_FE00_0000_0030, _free),
    "__assertfail": (0xFFFF_FE00_0000_0040, _assertfail),
}
BY_ADDRESS = dict(DEVICE_FUNCTIONS.values())


def calls_device_function(ins) -> bool:
    """`CALL.ABS Rn`, or `CALL.ABS f` of a device-runtime function the executor runs."""
    return calls_through_register(ins) or (ins.opcode == "CALL" and "ABS" in ins.mods
                                           and ins.branch_target in DEVICE_FUNCTIONS)


def call_device_function(ins, program):
    """The step of `CALL.ABS Rn` or `CALL.ABS f`: the device-runtime function called, then on."""
    registers = [op for op in ins.operands if op.kind == "reg"]
    by_name = DEVICE_FUNCTIONS[ins.branch_target][1] if ins.branch_target in DEVICE_FUNCTIONS else None
    if by_name is None and (ins.branch_target is not None or len(registers) != 1):
        raise Unsupported(f"a call of {ins.branch_target or 'this operand form'}")
    address_of = source(registers[0], 64) if registers else None
    results = {bits: dest(RESULT_REGISTER, bits) for bits in (32, 64)}
    after = program.index_of(ins) + 1

    def call(st, g):
        """The engine asks a control step only for its target, with the lanes that take it: the
        call runs here, then they go on after it."""
        run = by_name
        if run is None:
            called = np.broadcast_to(np.asarray(address_of(st, g), dtype=U64), (g.n,))
            run = BY_ADDRESS.get(int(called[0]))
            unknown = called != U64(int(called[0]))
            if run is None or unknown.any():
                fault(st, ins, g, unknown if run is not None else np.ones(g.n, dtype=bool), called,
                      "call to an address no device function has")
        result = run(st, ins, g)
        if result is not None:
            values, bits = result
            results[bits](st, g, values)
        return np.full(g.n, after, dtype=np.int64)
    return Step(ins, lambda st, g: None, target=call)


def lepc(ins, program):
    """LEPC Rd, L: Rd:Rd+1 = L's offset in the function (a device function returns there)."""
    registers = [op for op in ins.operands if op.kind == "reg"]
    if not registers or ins.branch_target not in program.labels:
        raise Unsupported("LEPC operand form")
    write = dest(registers[0], 64)
    offset = U64(program.instructions[program.labels[ins.branch_target]].offset)
    return Step(ins, lambda st, g: write(st, g, offset))


@semantics("LEPC", family="control", pipe="alu", mods=(),
           doc="the address of a label (a device-runtime call's return point) into a register pair")
def lepc_(ins):
    return ins
