"""Device limits, cache and shared-memory configuration, and the shared memory a block may still take.

cudaDeviceSetLimit stores a value that cudaDeviceGetLimit returns, rounded as an
H200 (CUDA 13.0 driver) rounds it; of the limits, warpsim acts on the stack size
(each launch's `stack_size` setting, what a recursive kernel may use). The printf
FIFO does not follow its limit, and the heap limit is only stored. Defaults,
roundings and refusals are the H200's (validation/programs/h200/native.json,
limits.cu): the runtime passes a cudaLimit on to the driver's CUlimit, so the
driver's limits past cudaLimitPersistingL2CacheSize answer too (7, the shared
memory a block may have, is read-only; 8, CIG, reads 0; 9 is unsupported) and
a number past the driver's enum is cudaErrorInvalidValue, not
cudaErrorUnsupportedLimit. sm_90 has no device-side cudaDeviceSynchronize, so
cudaLimitDevRuntimeSyncDepth is unsupported. The cache and bank-size
configurations are hints a Hopper GPU ignores: the cache configuration steers
the occupancy calculator's carveout (occupancy_carveout), the bank size always
reads four bytes.

cudaOccupancyMaxPotentialBlockSize is an inline template of cuda_runtime.h: it
calls cudaDeviceGetAttribute, cudaFuncGetAttributes and
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (here), so a program
gets the chosen GPU's answer from those.

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

from .context import LIMIT_STACK_SIZE
from .calls import (CODES, INVALID_VALUE, SUCCESS, _dynamic_shared_limit, _kernel_resources, _properties,
                    _refuse, _write, call)

LIMIT_PRINTF_FIFO, LIMIT_MALLOC_HEAP = 1, 2
LIMIT_SYNC_DEPTH, LIMIT_PENDING_LAUNCHES, LIMIT_L2_FETCH, LIMIT_PERSISTING_L2 = 3, 4, 5, 6
LIMIT_SHMEM_SIZE, LIMIT_CIG_ENABLED, LIMIT_CIG_SHMEM_FALLBACK = 7, 8, 9     # the driver's CUlimit past the runtime's enum
DRIVER_LIMITS = range(10)                      # CUlimit values the driver knows; past them: cudaErrorInvalidValue
UNSUPPORTED_LIMITS = {LIMIT_SYNC_DEPTH, LIMIT_CIG_SHMEM_FALLBACK}     # cudaErrorUnsupportedLimit on an H200
READ_ONLY_LIMITS = {LIMIT_SHMEM_SIZE, LIMIT_CIG_ENABLED}              # set: cudaErrorNotPermitted
PRINTF_FIFO_DEFAULT = 8650752                  # bytes: the H200's default (8 MiB + 256 KiB)
STACK_GRANULE = 16                             # bytes: a stack of 5000 reads back 5008
HEAP_GRANULE = 2 << 20                         # bytes: a heap of 3 MiB reads back 4 MiB (the GPU's large page)
PERSISTING_L2_UNITS = 16                       # the set-aside is whole sixteenths of L2: 1 MiB reads back 3932160
PERSISTING_L2_DEFAULT_UNITS = 3                # an H200 starts with 11796480 bytes = 3/16 of its 60 MiB L2
MAX_L2_FETCH = 128                             # bytes: cudaLimitMaxL2FetchGranularity's range is 0..128
UNSUPPORTED_LIMIT = CODES["cudaErrorUnsupportedLimit"]
NOT_PERMITTED = CODES["cudaErrorNotPermitted"]
CACHE_CONFIGS = range(4)                       # cudaFuncCachePreferNone .. cudaFuncCachePreferEqual
SHARED_MEM_CONFIGS = range(3)                  # cudaSharedMemBankSizeDefault .. EightByte
FOUR_BYTE_BANKS = 1                            # cudaSharedMemBankSizeFourByte: what a Hopper SM has, whatever is set


def default_limits(context) -> dict:
    """cudaLimit -> the GPU's value before the program sets one (cudaDeviceGetLimit)."""
    preset = context.preset
    return {LIMIT_STACK_SIZE: 1024, LIMIT_PRINTF_FIFO: PRINTF_FIFO_DEFAULT, LIMIT_MALLOC_HEAP: 8 << 20,
            LIMIT_PENDING_LAUNCHES: 2048, LIMIT_L2_FETCH: 64,
            LIMIT_PERSISTING_L2: PERSISTING_L2_DEFAULT_UNITS * _persisting_unit(context),
            LIMIT_SHMEM_SIZE: preset.max_shared_per_block, LIMIT_CIG_ENABLED: 0}


def _persisting_unit(context) -> int:
    return context.preset.l2_bytes // PERSISTING_L2_UNITS


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _stored_value(context, limit: int, value: int) -> int:
    """What cudaDeviceGetLimit reads back after cudaDeviceSetLimit(limit, value)."""
    if limit == LIMIT_STACK_SIZE:
        return _round_up(value, STACK_GRANULE)
    if limit == LIMIT_MALLOC_HEAP:
        return _round_up(value, HEAP_GRANULE)
    if limit == LIMIT_PERSISTING_L2:
        return _round_up(value, _persisting_unit(context))
    return value


def _limit_refused(limit: int) -> int:
    """The error cudaDeviceGetLimit/SetLimit give for a limit no GPU value answers (0: none)."""
    if limit not in DRIVER_LIMITS:
        return INVALID_VALUE
    return UNSUPPORTED_LIMIT if limit in UNSUPPORTED_LIMITS else 0


def limit_value(context, limit: int) -> int:
    return context.limits.get(limit, default_limits(context)[limit])


@call()
def cudaDeviceSetLimit(context, limit, value):
    refused = _limit_refused(limit)
    if refused:
        return context.fail(refused)
    if limit in READ_ONLY_LIMITS:
        return context.fail(NOT_PERMITTED)
    if limit == LIMIT_L2_FETCH and value > MAX_L2_FETCH:
        return _refuse(context, "cudaDeviceSetLimit", f"cudaLimitMaxL2FetchGranularity {value} is past "
                       f"{MAX_L2_FETCH} bytes")
    if limit == LIMIT_PERSISTING_L2 and value > _properties(context)["persistingL2CacheMaxSize"]:
        return _refuse(context, "cudaDeviceSetLimit", f"cudaLimitPersistingL2CacheSize {value} is past the "
                       f"{_properties(context)['persistingL2CacheMaxSize']} bytes the GPU can set aside")
    context.limits[limit] = _stored_value(context, limit, value)
    return SUCCESS


@call()
def cudaCtxResetPersistingL2Cache(context):
    """Lines set aside for persisting accesses go back to normal: the timing model keeps no persisting
    lines (runtime/stream_queries.py keeps the access policy windows only as set), so nothing changes."""
    return SUCCESS


@call()
def cudaDeviceGetLimit(context, out, limit):
    refused = _limit_refused(limit)
    if refused:
        return context.fail(refused)
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "Q", limit_value(context, limit))
    return SUCCESS


def _set_config(context, field: str, config, allowed) -> int:
    """A device configuration stored as given (it changes nothing the simulation does), if allowed."""
    if config not in allowed:
        return context.fail(INVALID_VALUE)
    setattr(context, field, config)
    return SUCCESS


def _get_config(context, out, value: int) -> int:
    if not out:
        return context.fail(INVALID_VALUE)
    _write(out, "i", value)
    return SUCCESS


@call()
def cudaDeviceSetCacheConfig(context, config):
    return _set_config(context, "cache_config", config, CACHE_CONFIGS)


@call()
def cudaDeviceGetCacheConfig(context, out):
    return _get_config(context, out, context.cache_config)


@call()
def cudaDeviceSetSharedMemConfig(context, config):
    return _set_config(context, "shared_mem_config", config, SHARED_MEM_CONFIGS)


@call()
def cudaDeviceGetSharedMemConfig(context, out):
    return _get_config(context, out, FOUR_BYTE_BANKS)      # an eight-byte request is accepted and ignored


@call()
def cudaFuncSetSharedMemConfig(context, function, config):
    if function not in context.kernels:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    return SUCCESS if config in SHARED_MEM_CONFIGS else context.fail(INVALID_VALUE)


CARVEOUT_OF_CACHE_CONFIG = {1: 100, 2: 0, 3: 50}   # cudaFuncCachePreferShared, L1, Equal -> percent of shared


def occupancy_carveout(context, function, arch, allocated: int):
    """The SM's shared memory (bytes) the occupancy calculator gives the kernel, or None for
    the driver's own choice (metrics.occupancy.driver_carveout). A carveout preference (the
    kernel's cudaFuncAttributePreferredSharedMemoryCarveout, else its cache configuration,
    else the device's) is a percentage of the SM's shared memory, rounded up to a size the SM
    can be configured with, as cuda_occupancy.h's cudaOccSMemPreferenceVoltaPlus does; the
    driver then takes the smallest size that holds one block where the preference holds none
    (an H200, limits.cu: PreferL1 gives a block with 1 KB reserved 8 blocks of an 8 KB carveout,
    and a block of 40000 dynamic bytes one block of 64 KB)."""
    percent = context.function_carveout.get(function, -1)
    if percent < 0:
        config = context.function_cache_config.get(function, 0) or context.cache_config
        percent = CARVEOUT_OF_CACHE_CONFIG.get(config)
        if percent is None:
            return None
    wanted = max(percent * arch.shared_per_sm // 100, allocated, 1)
    sizes = [kb * 1024 for kb in arch.carveouts_kb if kb * 1024 >= wanted]
    return sizes[0] if sizes else arch.carveouts_kb[-1] * 1024


def _arch(context):
    from ..metrics.occupancy import get_arch
    major, minor = context.preset.compute_capability
    return get_arch(f"sm_{major}{minor}")


def _occupancy(context, function, block_size: int, registers: int, shared: int):
    from ..metrics.occupancy import occupancy, shared_allocation
    arch = _arch(context)
    carveout = occupancy_carveout(context, function, arch, shared_allocation(arch, shared))
    return occupancy(block_size, registers, shared, arch=arch,
                     carveout_kb=None if carveout is None else carveout // 1024)


@call()
def cudaFuncSetCacheConfig(context, function, config):
    if function not in context.kernels:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    if config not in CACHE_CONFIGS:
        return context.fail(INVALID_VALUE)
    context.function_cache_config[function] = config
    return SUCCESS


@call()
def cudaOccupancyMaxActiveBlocksPerMultiprocessor(context, out, function, block_size, dynamic_shared):
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags.__wrapped__(
        context, out, function, block_size, dynamic_shared, 0)


@call()
def cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(context, out, function, block_size,
                                                           dynamic_shared, flags):
    found = _kernel_resources(context, function)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    if block_size <= 0:
        return context.fail(INVALID_VALUE)
    _, _, registers, static_shared = found
    result = _occupancy(context, function, block_size, registers, static_shared + dynamic_shared)
    _write(out, "i", result.active_blocks)
    return SUCCESS


@call()
def cudaOccupancyAvailableDynamicSMemPerBlock(context, out, function, blocks, block_size):
    """The most dynamic shared memory each of `blocks` blocks on one SM can have, as an H200
    answers (limits.cu): one block may have what the kernel may ask for (its
    maxDynamicSharedSizeBytes); more share the kernel's carveout (occupancy_carveout; the
    SM's whole shared memory by default) in whole allocation units, less their static
    bytes, with no per-block reservation taken off, at most maxDynamicSharedSizeBytes.
    cudaErrorInvalidValue when the kernel's occupancy (threads, registers, blocks, the
    carveout) holds fewer than `blocks` such blocks."""
    from ..metrics.occupancy import shared_allocation
    found = _kernel_resources(context, function)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    if not out or blocks <= 0 or block_size <= 0 or block_size > context.preset.max_threads_per_block:
        return context.fail(INVALID_VALUE)
    _, _, registers, static_shared = found
    if _occupancy(context, function, block_size, registers, static_shared).active_blocks < blocks:
        return _refuse(context, "cudaOccupancyAvailableDynamicSMemPerBlock", f"{blocks} blocks of {block_size} "
                       "threads do not fit on one SM whatever their shared memory")
    limit = _dynamic_shared_limit(context, function, static_shared)
    if blocks == 1:
        available = limit
    else:
        arch = _arch(context)
        carveout = occupancy_carveout(context, function, arch, shared_allocation(arch, static_shared))
        per_sm = arch.shared_per_sm if carveout is None else carveout
        share = per_sm // blocks // arch.shared_allocation_unit * arch.shared_allocation_unit
        available = min(share - static_shared, limit)
    _write(out, "Q", max(available, 0))
    return SUCCESS
