"""Uncoloured reports laid out without rich's general table layout (report/terminal.print_report):
the same characters as rich prints, for real launch profiles at widths where their tables fit and
where rich must shrink them, and rich's own layout for tables of other kinds."""

from __future__ import annotations

import io

import numpy as np
import pytest

import warpsim as cp
from warpsim.report.console import make_console
from warpsim.report.stall_lines import stall_lines_table
from warpsim.report.terminal import plain_table_lines, print_report, table, text

SOURCE = r"""
extern "C" __global__ void steps(const int* x, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    for (int k = 0; k < (v & 15); ++k) v = v * 3 + k;   // [a bracketed comment]
    out[i] = v;
}
"""


def printed(renderable, width: int, fast: bool) -> str:
    out = io.StringIO()
    console = make_console(file=out, width=width, color_system=None, force_terminal=False)
    print_report(console, renderable) if fast else console.print(renderable)
    return out.getvalue()


@pytest.fixture(scope="module")
def launch():
    function = cp.RawModule(code=SOURCE).get_function("steps")
    x = cp.asarray(np.random.default_rng(2).integers(0, 1000, 1024).astype(np.int32))
    with cp.settings(gpu="h200"), cp.profile() as prof:
        function((4,), (256,), (x, cp.zeros(1024, cp.int32)))
    return prof.launches[0]


@pytest.mark.parametrize("width", [50, 90, 120, 200])
def test_a_launch_report_prints_the_same_characters(launch, width):
    parts = [launch, launch.source_view(), stall_lines_table(launch.timing, sources=launch.sources)]
    for part in parts:
        assert printed(part, width, fast=True) == printed(part, width, fast=False)
    if width >= 120:                     # the metrics table fits: laid out here
        assert plain_table_lines(launch.metrics_table(), width) is not None


def test_tables_of_other_kinds_or_too_wide_are_left_to_rich():
    t = table("title", ["a", ("b", dict(justify="right"))])
    t.add_row("x" * 30, "█ 1")
    t.add_row("[not markup]", "22")
    assert plain_table_lines(t, 80) is not None
    assert "\n".join(plain_table_lines(t, 80)) + "\n" == printed(t, 80, fast=False)
    assert plain_table_lines(t, 30) is None                  # rich shrinks it
    centred = table("title", ["a"], title_justify="center")
    centred.add_row("x")
    assert plain_table_lines(centred, 80) is None
    two_lines = table(None, ["a"])
    two_lines.add_row(text("one\ntwo"))
    assert plain_table_lines(two_lines, 80) is None
    assert printed(two_lines, 80, fast=True) == printed(two_lines, 80, fast=False)
