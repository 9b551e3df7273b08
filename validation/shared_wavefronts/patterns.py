"""The lane-to-element patterns of the shared-memory wavefront experiment (run.py).

Each pattern gives the element (0-63 of a 64-element tile) every lane of a warp loads, for one
width (4, 8 or 16 bytes). The recorded ones (validation/sass_counters: 64-bit broadcasts take 1
wavefront where half-warp phases say 2; some 128-bit patterns 2 where quarter-warp phases say 4,
and which ones merge is not settled) are here, and families that vary one thing at a time:
how many distinct elements the warp reads, how lanes are assigned to them (in blocks, interleaved,
at random), where the elements lie (consecutive, spread over banks, on one bank), and single
lanes moved off a broadcast.
"""

from __future__ import annotations

import numpy as np

WIDTHS = {4: "sw_load32", 8: "sw_load64", 16: "sw_load128"}
ELEMENTS = 64
LANE = np.arange(32)


def _family(width: int) -> dict:
    per_bank_row = 128 // width          # elements in 128 bytes: one pass over the 32 banks
    out = {
        "contiguous": LANE,
        "reversed": 31 - LANE,
        "same": np.zeros(32, int),
        "halves": LANE // 16,
        "quarters": LANE // 8,
        "eighths": LANE // 4,
        "pairs": LANE // 2,
        "alt2": LANE % 2,
        "alt4": LANE % 4,
        "mod8": LANE % 8,
        "mod16": LANE % 16,
        "xor1": LANE ^ 1,
        "xor8": LANE ^ 8,
        "xor16": LANE ^ 16,
        "halves_swapped": (LANE + 16) % 32,
        "same_but_one": np.where(LANE == 31, 1, 0),
        "same_but_lane0": np.where(LANE == 0, 1, 0),
        "same_but_lane8": np.where(LANE == 8, 1, 0),
        "same_but_lane16": np.where(LANE == 16, 1, 0),
        "same_but_one_conflict": np.where(LANE == 31, per_bank_row, 0),
        "halves_far": (LANE // 16) * per_bank_row,
        "quarters_far": (LANE // 8) * per_bank_row % ELEMENTS,
        "second_half_shifted": np.where(LANE < 16, LANE % 8, 8 + LANE % 8),
        "quarter_pairs": np.array([(q % 2) * 4 + (j // 2) + 8 * (j % 2) + 16 * (q // 2)
                                   for q in range(4) for j in range(8)]) % ELEMENTS,
        "half_pairs": np.array([(h * 8) + (j // 2) + 16 * (j % 2) for h in range(2) for j in range(16)]),
    }
    # k distinct elements, lanes in blocks / interleaved / at random; elements consecutive or spread
    rng = np.random.default_rng(20261205 + width)
    for k in (2, 3, 4, 6, 8, 12, 16, 24):
        elements_consecutive = np.arange(k)
        elements_spread = (np.arange(k) * max(1, ELEMENTS // k)) % ELEMENTS
        elements_random = rng.choice(ELEMENTS, size=k, replace=False)
        assign = {"blocks": LANE * k // 32, "interleaved": LANE % k, "random": rng.integers(0, k, 32)}
        for place, elements in (("consecutive", elements_consecutive), ("spread", elements_spread),
                                ("random", elements_random)):
            for how, a in assign.items():
                out[f"k{k}_{how}_{place}"] = elements[a]
    for j in range(6):
        out[f"random_{j}"] = rng.integers(0, ELEMENTS, 32)
    return {name: np.asarray(v, dtype=np.int32) for name, v in out.items()}


def patterns() -> list:
    """[(label, width in bytes, kernel, element index per lane)] in a fixed order."""
    rows = []
    for width, kernel in WIDTHS.items():
        for name, idx in _family(width).items():
            assert idx.shape == (32,) and idx.min() >= 0 and idx.max() < ELEMENTS, name
            rows.append((f"w{width * 8}_{name}", width, kernel, idx))
    return rows
