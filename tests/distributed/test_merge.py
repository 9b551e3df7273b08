"""The merge's arithmetic and the shard plan, without a cluster."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.cli.sweep import _parameter
from warpsim.distributed import memory_image, merge
from warpsim.distributed.launch import shard_ranges


def sequential(op, bound, start, times):
    value = start
    for _ in range(times):
        if op == "inc":
            value = 0 if value >= bound else value + 1
        else:
            value = bound if value == 0 or value > bound else value - 1
    return value


@pytest.mark.parametrize("op", ["inc", "dec"])
@pytest.mark.parametrize("start", [0, 3, 6, 9])
def test_counted_inc_dec_follow_the_wrap_rule(op, start):
    for times in range(0, 20):
        got = merge._counted(op, 6, np.array([start]), np.array([times]))[0]
        assert got == sequential(op, 6, start, times), (op, start, times)


def test_integer_add_wraps_and_min_max_are_signed():
    original = np.zeros(16, np.uint8)
    original[:4] = np.array([0xFFFFFFF0], np.uint32).view(np.uint8)
    finals = [original.copy(), original.copy()]
    finals[0][:4] = np.array([0xFFFFFFF8], np.uint32).view(np.uint8)     # +8
    finals[1][:4] = np.array([0x00000004], np.uint32).view(np.uint8)     # +20, wrapped
    counts = np.zeros((2, 1), np.int64)
    merged = merge.merged_values("add", "u32", None, original, finals, np.array([0]), counts)
    assert int(merged[0]) == (0xFFFFFFF0 + 28) % 2**32
    merged = merge.merged_values("min", "s32", None, original, finals, np.array([0]), counts)
    assert int(merged[0]) == -16 + 8                                  # 0xFFFFFFF8 as s32 is -8


def test_float_min_with_signed_zeros_is_refused():
    original = np.zeros(8, np.uint8)
    finals = [original.copy(), original.copy()]
    finals[1][:4] = np.array([-0.0], np.float32).view(np.uint8)
    with pytest.raises(merge.MergeRefused):
        merge.merged_values("min", "f32", None, original, finals, np.array([0]), np.zeros((2, 1)))


def test_runs_and_masks_round_trip():
    mask = np.zeros(40, bool)
    mask[[0, 1, 2, 10, 30, 31, 39]] = True
    runs = memory_image.runs_of(mask)
    assert runs.tolist() == [[0, 3], [10, 11], [30, 32], [39, 40]]
    assert (memory_image.mask_of(runs, 40) == mask).all()


def test_shards_start_at_batch_boundaries():
    ranges = shard_ranges((100, 1, 1), (256, 1, 1), batch_threads=1024, wanted=4)   # 4 CTAs a batch
    assert ranges[0][0] == 0 and ranges[-1][1] == 100 and len(ranges) == 4
    assert all(first % 4 == 0 for first, _ in ranges)
    assert shard_ranges((3, 1, 1), (256, 1, 1), batch_threads=1 << 17, wanted=4) == [(0, 3)]


def test_cli_parameters_keep_tuples_whole():
    assert _parameter("block=64,(16,16),256") == ("block", [64, (16, 16), 256])
    assert _parameter("scheduling=its,stack") == ("scheduling", ["its", "stack"])
