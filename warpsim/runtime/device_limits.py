"""Device limits, cache and shared-memory configuration, and the shared memory a block may still take.

cudaDeviceSetLimit stores a value that cudaDeviceGetLimit returns; of the
limits, warpsim acts on the stack size (each launch's `stack_size` setting,
what a recursive kernel may use). The printf FIFO does not follow its limit,
and device-side malloc is not simulated, so the heap limit is only stored. Defaults and what is refused
are an H200's (CUDA 13). The cache and bank-size configurations are hints a
Hopper GPU ignores: stored, returned, never acted on.

cudaOccupancyMaxPotentialBlockSize is an inline template of cuda_runtime.h: it
calls cudaDeviceGetAttribute, cudaFuncGetAttributes and
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (in calls), so a program
gets the chosen GPU's answer from those.

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

from .context import LIMIT_STACK_SIZE
from .calls import (CODES, INVALID_VALUE, SUCCESS, _dynamic_shared_limit, _kernel_resources, _properties,
                    _refuse, _write, call)

LIMIT_PRINTF_FIFO, LIMIT_MALLOC_HEAP = 1, 2
LIMIT_SYNC_DEPTH, LIMIT_PENDING_LAUNCHES, LIMIT_L2_FETCH, LIMIT_PERSISTING_L2 = 3, 4, 5, 6
# cudaLimit -> the H200's value before the program sets one (cudaDeviceGetLimit)
DEFAULT_LIMITS = {LIMIT_STACK_SIZE: 1024, LIMIT_PRINTF_FIFO: 1 << 20, LIMIT_MALLOC_HEAP: 8 << 20,
                  LIMIT_SYNC_DEPTH: 2, LIMIT_PENDING_LAUNCHES: 2048, LIMIT_L2_FETCH: 64,
                  LIMIT_PERSISTING_L2: 0}
MAX_L2_FETCH = 128                             # bytes: cudaLimitMaxL2FetchGranularity's range is 0..128
UNSUPPORTED_LIMIT = CODES["cudaErrorUnsupportedLimit"]
CACHE_CONFIGS = range(4)                       # cudaFuncCachePreferNone .. cudaFuncCachePreferEqual
SHARED_MEM_CONFIGS = range(3)                  # cudaSharedMemBankSizeDefault .. EightByte


def limit_value(context, limit: int) -> int:
    return context.limits.get(limit, DEFAULT_LIMITS[limit])


@call()
def cudaDeviceSetLimit(context, limit, value):
    if limit not in DEFAULT_LIMITS:
        return context.fail(UNSUPPORTED_LIMIT)
    if limit == LIMIT_L2_FETCH and value > MAX_L2_FETCH:
        return _refuse(context, "cudaDeviceSetLimit", f"cudaLimitMaxL2FetchGranularity {value} is past "
                       f"{MAX_L2_FETCH} bytes")
    if limit == LIMIT_PERSISTING_L2 and value > _properties(context)["persistingL2CacheMaxSize"]:
        return _refuse(context, "cudaDeviceSetLimit", f"cudaLimitPersistingL2CacheSize {value} is past the "
                       f"{_properties(context)['persistingL2CacheMaxSize']} bytes the GPU can set aside")
    context.limits[limit] = value
    return SUCCESS


@call()
def cudaDeviceGetLimit(context, out, limit):
    if limit not in DEFAULT_LIMITS:
        return context.fail(UNSUPPORTED_LIMIT)
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
    return _get_config(context, out, context.shared_mem_config or 1)     # 4-byte banks, as a Hopper SM's


@call()
def cudaFuncSetSharedMemConfig(context, function, config):
    if function not in context.kernels:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    return SUCCESS if config in SHARED_MEM_CONFIGS else context.fail(INVALID_VALUE)


@call()
def cudaOccupancyAvailableDynamicSMemPerBlock(context, out, function, blocks, block_size):
    """The most dynamic shared memory each of `blocks` blocks on one SM can have, as
    cuda_occupancy.h's cudaOccAvailableDynamicSMemPerBlock reckons it: the SM's shared
    memory split among them in whole allocation units (one block: the per-block opt-in
    limit), less the static bytes and the driver's per-block reservation, at most the
    kernel's maxDynamicSharedSizeBytes (48 KB less its static bytes unless it opted in).
    cudaErrorInvalidValue when the other limits (threads, registers, blocks) hold fewer
    than `blocks` such blocks."""
    from ..metrics.occupancy import get_arch, occupancy
    found = _kernel_resources(context, function)
    if found is None:
        return context.fail(CODES["cudaErrorInvalidDeviceFunction"])
    if not out or blocks <= 0 or block_size <= 0 or block_size > context.preset.max_threads_per_block:
        return context.fail(INVALID_VALUE)
    _, _, registers, static_shared = found
    major, minor = context.preset.compute_capability
    arch = get_arch(f"sm_{major}{minor}")
    if occupancy(block_size, registers, static_shared, arch=arch).active_blocks < blocks:
        return _refuse(context, "cudaOccupancyAvailableDynamicSMemPerBlock", f"{blocks} blocks of {block_size} "
                       "threads do not fit on one SM whatever their shared memory")
    per_block_limit = arch.max_shared_per_block + arch.reserved_shared_per_block
    per_sm = per_block_limit if blocks == 1 else arch.shared_per_sm
    share = min(per_sm // blocks // arch.shared_allocation_unit * arch.shared_allocation_unit, per_block_limit)
    available = share - static_shared - arch.reserved_shared_per_block
    available = min(available, _dynamic_shared_limit(context, function, static_shared))
    _write(out, "Q", max(available, 0))
    return SUCCESS
