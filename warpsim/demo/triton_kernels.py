"""Triton's tutorial kernels for row softmax and layer norm, and how the tutorials launch them.

The kernels follow Triton's tutorials 02-fused-softmax and 05-layer-norm (the forward
pass): one program per row (softmax: persistent programs striding over rows, pipelined
with num_stages), the whole row in one block of BLOCK_SIZE lanes, tl.max / tl.sum for the
reductions, which Triton compiles to warp shuffles and, across warps, shared memory.
The launch parameters are the tutorials' own heuristics. Importing this module needs triton
(the kernels are defined by @triton.jit at import): without it, MissingDependency names the extra.
"""

from __future__ import annotations

from ..errors import import_optional

triton = import_optional("triton", extra="triton", needed_for="the Triton kernels of warpsim demo cooperative")
import triton.language as tl  # noqa: E402


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        softmax_output = numerator / tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, softmax_output, mask=mask)


@triton.jit
def layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        _mean += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


def softmax_launch(cols: int) -> dict:
    """The softmax tutorial's constexprs and options for rows of `cols` floats."""
    return dict(BLOCK_SIZE=triton.next_power_of_2(cols), num_warps=8, num_stages=4)


def layer_norm_launch(cols: int) -> dict:
    """The layer-norm tutorial's: a block of up to 64 KB, one warp per 256 elements, at most 8."""
    block = min(65536 // 4, triton.next_power_of_2(cols))
    return dict(BLOCK_SIZE=block, num_warps=min(max(block // 256, 1), 8))


def softmax_programs(registers: int, shared: int, sms: int, rows: int, num_warps: int = 8) -> int:
    """The softmax tutorial's persistent grid: as many programs as its occupancy estimate fits
    on every SM (65,536 registers and 227 KB of shared memory per SM), at most one per row."""
    occupancy = 65536 // (registers * 32 * num_warps)
    if shared:
        occupancy = min(occupancy, 232448 // shared)
    return max(1, min(sms * occupancy, rows))
