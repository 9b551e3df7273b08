"""Launching a kernel's SASS: constant banks as the driver lays them out, CTAs in batches.

Constant bank 0 for sm_90: ntid.x/y/z at 0x0, nctaid.x/y/z at 0xc, the stack
top at 0x28 (the thread's local memory size here: the stack grows down from
it), the global-memory descriptor at 0x208 (its value is never used as an
address), the kernel parameters from 0x210, in the layout the launch packed
them (the CUDA ABI's, which is what .nv.info's KPARAM_INFO offsets say), and
at 0x198 the generic address of the parameter area, to which ptxas adds a
parameter's KPARAM_INFO offset for its generic address (a tensor map's). ptxas
may start the first parameter past 0x210 (at 0x240 for a 64-byte aligned
tensor map: KPARAM_INFO offset 0x30); warpsim's parameter space has no generic
window and cvta.param keeps offsets from the first parameter, so the slot holds
minus the first parameter's offset and the sum is that offset (async_copy.py).
Bank 3 holds the module's __constant__ variables with the values the device
memory holds when the launch starts; other banks are ptxas's own constants.
"""

from __future__ import annotations

import sys

import numpy as np

from ...machine.cluster import batch_size
from ...machine.events import observers_of
from ...semantics.addresses import LOCAL_WINDOW
from ...settings import current
from ..compiled.round_loop import round_loop_for
from ..compiled import global_access
from ..compiled.rounds import Select, select_groups
from ..compiled.fused import fused_for
from ..compiled.segment import machine_code_allowed, segments_for
from .cluster import put_cluster_words
from . import device_calls
from .cubin_info import PARAM_BASE, kernel_image
from .engine import run_batch
from .errors import SassExecutionError, SassUnsupported
from .program import SassProgram
from .state import SassState

NTID, NCTAID, STACK_TOP = 0x0, 0xC, 0x28
LOCAL_WINDOW_BASE = 0x20            # the generic address of local byte 0: ptxas adds it to the stack pointer
ENVREG1, ENVREG2 = 0x44, 0x48      # %envreg1/%envreg2: the grid workspace's high and low halves (ptxas, sm_90)
PARAM_WINDOW = 0x198
USER_CONSTANT_BANK = 3
USER_CONSTANT_ADDRESS = 0xD0       # c[0x0][0xd0]: where the driver put bank 3 in device memory (a __constant__
#                                    variable's address, as a tensor map in constant memory is named by)
MIN_LOCAL = 16

def load_program(sass_module, kernel: str) -> tuple:
    """(SassProgram, KernelImage) of a kernel, decoded once per SassModule; SassUnsupported if it cannot run."""
    per_module = sass_module.__dict__.setdefault("_executor_programs", {})
    if kernel not in per_module:
        try:
            per_module[kernel] = (SassProgram(sass_module.kernel(kernel)), kernel_image(sass_module.cubin, kernel,
                                                                                    sass_module.arch))
        except Exception as exc:          # remembered, so a second launch fails as fast
            per_module[kernel] = exc
    found = per_module[kernel]
    if isinstance(found, Exception):
        raise found
    refused = device_calls.refused_calls(*found)
    if refused:
        raise SassUnsupported(kernel, refused)
    return found


def _put(bank: np.ndarray, offset: int, values, dtype=np.uint32) -> None:
    raw = np.asarray(values, dtype=dtype).view(np.uint8)
    bank[offset:offset + len(raw)] = raw


def first_param_offset(image) -> int:
    """Where ptxas put the first parameter, from the parameter area's start (0 unless it aligns it)."""
    return min((offset for _, offset, _ in image.params), default=0)


def cubin_params(image, ptx_params: bytes) -> bytes:
    """A PTX launch's parameter buffer (the first parameter at 0) in the cubin's layout."""
    return bytes(first_param_offset(image)) + bytes(ptx_params)


def _bank_of(banks: dict, number: int, size: int) -> np.ndarray:
    """Constant bank `number` of `banks`, made or zero-extended to at least `size` bytes."""
    bank = banks.get(number)
    if bank is None or len(bank) < size:
        grown = np.zeros(size, dtype=np.uint8)
        if bank is not None:
            grown[:len(bank)] = bank
        bank = banks[number] = grown
    return bank


def constant_banks(image, grid, block, params: bytes, local_size: int, constants: dict,
                   addresses: dict | None = None, cluster_dims=(1, 1, 1), grid_workspace: int = 0) -> dict:
    """Every constant bank the kernel reads; `addresses` (global variable -> device address, as the
    PTX run placed them) fills the slots the driver relocates; `grid_workspace` (a cooperative
    launch's, machine.cooperative) the words a grid sync reads its address from."""
    base = image.param_base
    size = max(len(image.bank0), base + len(params), base + image.param_bytes)
    bank0 = np.zeros((size + 15) // 16 * 16 + 16, dtype=np.uint8)
    bank0[:len(image.bank0)] = np.frombuffer(image.bank0, dtype=np.uint8)
    _put(bank0, NTID, block)
    _put(bank0, NCTAID, grid)
    _put(bank0, STACK_TOP, [local_size])
    _put(bank0, LOCAL_WINDOW_BASE, [LOCAL_WINDOW], np.uint64)
    if grid_workspace:
        _put(bank0, ENVREG1, [grid_workspace >> 32, grid_workspace & 0xFFFFFFFF])
    if base == PARAM_BASE:
        _put(bank0, PARAM_WINDOW, [(-first_param_offset(image)) % (1 << 64)], np.uint64)
        put_cluster_words(bank0, grid, cluster_dims)
    bank0[base:base + len(params)] = np.frombuffer(bytes(params), dtype=np.uint8)
    banks = {0: bank0}
    for number, data in image.banks.items():
        banks[number] = np.frombuffer(bytes(data), dtype=np.uint8).copy()
    for name, (number, offset, length) in image.constant_symbols.items():
        value = constants.get(name)
        if value is None:
            continue
        bank = _bank_of(banks, number, offset + length)
        bank[offset:offset + length] = np.frombuffer(bytes(value[:length]), dtype=np.uint8)
    addresses = addresses or {}
    by_bank: dict = {}                  # bank -> [(offset, address)]: a module's every global variable may
    for number, offset, symbol, addend in image.symbol_slots:       # have a slot, so one write a bank
        address = addresses.get(symbol, device_calls.device_function_address(symbol) or None)
        if address is None:
            raise SassExecutionError(f"kernel '{image.name}' reads the address of '{symbol}' from "
                                     f"c[0x{number:x}][0x{offset:x}], and no device address is known for it")
        by_bank.setdefault(number, []).append((offset, (int(address) + addend) % (1 << 64)))
    for number, slots in by_bank.items():
        offsets = np.array([offset for offset, _ in slots], dtype=np.int64)
        values = np.array([value for _, value in slots], dtype=np.uint64)
        bank = _bank_of(banks, number, int(offsets.max()) + 8)
        at = offsets[:, None] + np.arange(8)            # each slot's 8 bytes, little-endian
        bank[at] = values.view(np.uint8).reshape(len(slots), 8)
    return banks


def run_launch(program, image, *, memory, grid, block, params: bytes, shared_bytes: int = 0,
               constants: dict | None = None, addresses: dict | None = None, observers=(), batch_threads: int = 1 << 17,
               max_rounds: int = 1_000_000, cluster_dims=(1, 1, 1), grid_workspace: int = 0,
               printf: bool = True) -> dict:
    """Run the whole grid on `memory` (a GlobalMemory, changed in place); returns run statistics.

    printf: whether device printf writes to stdout (a replay beside the PTX run, which printed
    the same lines, passes False).

    cluster_dims: the launch's cluster shape; every batch holds whole clusters, so a CTA's cluster
    barrier and its neighbours' shared memory are in its batch. grid_workspace: a cooperative
    launch's workspace address; the whole grid is then one batch, so CTAs spinning at a grid
    sync and those they wait for are scheduled in the same rounds."""
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    local_size = max(MIN_LOCAL, (image.stack_bytes + 15) // 16 * 16)
    cluster_dims = tuple(int(d) for d in cluster_dims)
    banks = constant_banks(image, grid, block, params, local_size, constants or {}, addresses, cluster_dims,
                           grid_workspace)
    shared_size = (max(image.static_shared, shared_bytes) + 16 + 15) // 16 * 16
    threads = block[0] * block[1] * block[2]
    per_batch = batch_size(max(1, batch_threads // (((threads + 31) // 32) * 32)), grid, cluster_dims)
    n_ctas = grid[0] * grid[1] * grid[2]
    if grid_workspace:
        per_batch = n_ctas
    stats = {"rounds": 0, "batches": 0}
    user_constants = place_user_constants(program, banks, memory)
    try:
        _run_batches(program, image, memory, grid, block, banks, shared_size, local_size, cluster_dims, n_ctas,
                     per_batch, max_rounds, observers, stats, sys.stdout if printf else None)
    finally:
        if user_constants is not None:
            memory.free(user_constants)
    return stats


def reads_user_constant_address(program) -> bool:
    """Whether the kernel reads c[0x0][0xd0], bank 3's address in device memory (cached on the program)."""
    found = program.__dict__.get("_reads_user_constant_address")
    if found is None:
        found = program._reads_user_constant_address = any(
            op.kind == "const" and op.bank == 0 and op.offset == USER_CONSTANT_ADDRESS
            for ins in program.instructions for op in ins.operands)
    return found


def place_user_constants(program, banks, memory):
    """Bank 3's bytes copied into device memory for a kernel that names a __constant__ variable by its
    address (ptxas reads bank 3's address from c[0x0][0xd0]: a tensor map in constant memory, say), that
    address in bank 0; the copy's address, to be freed after the launch, or None."""
    bank = banks.get(USER_CONSTANT_BANK)
    if bank is None or not len(bank) or not reads_user_constant_address(program):
        return None
    address = memory.allocate(len(bank), initialized=True)
    memory.write_bytes(address, bank, "the constant bank's copy")
    _put(banks[0], USER_CONSTANT_ADDRESS, [address], np.uint64)
    return address


def _run_batches(program, image, memory, grid, block, banks, shared_size, local_size, cluster_dims, n_ctas,
                 per_batch, max_rounds, observers, stats, printf_output) -> None:
    """The grid's batches one after another, each a SassState run to its end."""
    block_observers = observers_of(observers, "sass_block_issued")
    memory_observers = observers_of(observers, "sass_memory_access")
    batch_observers = observers_of(observers, "sass_batch_started")
    engine = current().engine
    for first in range(0, n_ctas, per_batch):
        cta_ids = np.arange(first, min(n_ctas, first + per_batch), dtype=np.int64)
        st = SassState(program, grid, block, cta_ids, banks, shared_size, local_size, memory)
        st.shared_reserved = image.shared_reserved
        st.printf_output = printf_output
        st.cluster_dims = cluster_dims
        st.block_observers, st.memory_observers = block_observers, memory_observers
        st.segments = segments_for(program, engine, st.n)
        st.fused = fused_for(program, engine, st.n) if st.segments else None
        st.compiled_memory = all(machine_code_allowed(engine, st.n, f) for f in global_access.DISPATCHERS)
        if machine_code_allowed(engine, st.n, select_groups):
            st.select = Select(st)
            st.round_loop = round_loop_for(st, engine)
        for observer in batch_observers:
            observer.sass_batch_started(st)
        run_batch(st, max_rounds)
        st.release()
        stats["rounds"] += st.rounds
        stats["batches"] += 1
