"""One thread per row vs one warp per row: the design trade-off the document ends with."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "cooperative"
TITLE = "One thread per row vs one warp per row"
CLAIM = """
The main design trade-off is between giving each thread independent work, which is
simple but vulnerable to divergence and imbalance, and giving each warp a shared task
that lanes solve cooperatively with shuffles. Fused softmax and layer norm use the
cooperative pattern: one warp or block per row, lanes striding across the row, and
shuffles for the reductions. Triton generates these patterns for you, but the cost
model is the same.
"""
KERNELS = "cooperative.cu"
ELEMENTS = 1 << 18               # every batch holds 2^18 floats (1 MB): rows x columns
LENGTHS = (8, 128, 1024)         # columns per row; 8 is a router's softmax over 8 experts (run(lengths=...) for more)
LONG = (128, 1024)               # the lengths where the document's conclusion is checked
THREADS = 128                    # threads per block of the CUDA versions
LEVEL = "ptx"                    # counts of PTX instructions: a SASS run beside each would double the demo's time
EPS = 1e-5
WAYS = ("thread", "warp", "triton")
# Launches the demo leaves out by default (run(skip=()) runs them): at 8 columns Triton's
# softmax tutorial gives every row 8 warps (num_warps=8) and its persistent programs walk 28
# rows each, 12 M warp instructions; its layer norm launches one program per row, 32,768 of
# them, 3.3 M warp instructions. Together seconds of the demo's time, and what they would show
# at 8 columns (lanes idle past a short row) the warp-per-row kernels show already.
NOT_RUN = {("softmax", 8, "triton"): "Triton's softmax is not run at 8 columns: its tutorial gives every row 8 warps, "
                                     "12 M warp instructions, seconds to simulate",
           ("layernorm", 8, "triton"): "Triton's layer norm is not run at 8 columns: one program per row, "
                                       "32,768 programs, seconds to simulate"}
WAY_TITLES = {"thread": "one thread per row", "warp": "one warp per row", "triton": "Triton's kernel"}
LOAD_SECTORS = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
LANES = "smsp__thread_inst_executed_per_inst_executed.ratio"


# ------------------------------------------------------------ NumPy references

def softmax_reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm_reference(x, w, b):
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + EPS) * w + b


TOLERANCE = {"softmax": dict(rtol=1e-4, atol=1e-6), "layernorm": dict(rtol=1e-4, atol=1e-4)}


# ------------------------------------------------------------ launches

def triton_arch() -> int:
    """The compute capability Triton compiles the demo's kernels for: that of the GPU they are
    predicted on (warpsim.api.triton.target_arch under the demo's settings)."""
    from ..api.triton import target_arch
    from ..settings import current, settings
    with settings(gpu=current().gpu or common.GPU):
        return target_arch()


def triton_missing() -> str:
    """Why Triton's row is skipped ('' when triton is installed)."""
    from ..frontends.triton import triton_available
    return "" if triton_available() else "triton is not installed (pip install warpsim[triton])"


def cuda_launch(op: str, way: str, x, w, b, out, observers=()):
    """The CUDA C++ version: one thread per row, or one warp (32 lanes) per row."""
    from .. import api
    rows, cols = x.shape
    threads = rows if way == "thread" else 32 * rows
    args = (api.asarray(x), out, np.int32(rows), np.int32(cols))
    if op == "layernorm":
        args = (api.asarray(x), api.asarray(w), api.asarray(b), out, np.int32(rows), np.int32(cols),
                np.float32(EPS))
    return common.launch(KERNELS, f"{op}_{way}_per_row", -(-threads // THREADS), THREADS, args,
                         label=f"{op}_{way}_per_row, {cols} columns", observers=observers, level=LEVEL)


def triton_launch(op: str, x, w, b, out, observers=()):
    """Triton's tutorial kernel, launched as the tutorial launches it."""
    from .. import api
    from ..api import triton as wt
    from ..metrics.registers import registers_per_thread
    from ..ptx.parser import parse_ptx
    from ..settings import current
    from ..timing import gpu_preset
    from . import triton_kernels as tk
    rows, cols = x.shape
    label = f"Triton {op}, {cols} columns"
    if op == "softmax":
        options = tk.softmax_launch(cols)
        args = (out, api.asarray(x), cols, cols, rows, cols)
        compiled = wt.compile(tk.softmax_kernel, *args, **options)
        registers = registers_per_thread(parse_ptx(compiled.ptx), compiled.name).registers
        programs = tk.softmax_programs(registers, compiled.shared, gpu_preset(current().gpu or common.GPU).sms,
                                       rows, options["num_warps"])
        return common.launch_triton(tk.softmax_kernel, (programs,), *args, label=label, observers=observers,
                                    level=LEVEL, **options)
    mean, rstd = api.zeros(rows, dtype=np.float32), api.zeros(rows, dtype=np.float32)
    return common.launch_triton(tk.layer_norm_fwd_fused, (rows,), api.asarray(x), out, api.asarray(w),
                                api.asarray(b), mean, rstd, cols, cols, EPS, label=label,
                                observers=observers, level=LEVEL, **tk.layer_norm_launch(cols))


def measure(op: str, way: str, x, w, b) -> dict:
    """One launch: its output checked against NumPy, and the figures the demo shows."""
    from .. import api
    rows, cols = x.shape
    out = api.full(rows * cols, np.nan, dtype=np.float32)
    shuffles = common.OpcodeCounter({"shfl"})
    run = triton_launch(op, x, w, b, out, (shuffles,)) if way == "triton" else \
        cuda_launch(op, way, x, w, b, out, (shuffles,))
    got = out.get().reshape(rows, cols)
    want = softmax_reference(x) if op == "softmax" else layernorm_reference(x, w, b)
    timing = run.timing
    return dict(run=run, written=bool(np.isfinite(got).all()),
                correct=bool(np.allclose(got, want, **TOLERANCE[op])),
                lanes=float(run.metric(LANES, 0.0)), sectors=float(run.metric(LOAD_SECTORS, 0.0)),
                shuffles_per_row=shuffles.executions / rows,
                issued_per_row=run.issued / rows,
                time_us=None if timing is None else timing.time_s * 1e6)


def speedup(table, op, cols, way) -> float | None:
    """How many times faster `way` is predicted than one thread per row."""
    slow, fast = table.get((op, cols, "thread")), table.get((op, cols, way))
    if not slow or not fast or slow["time_us"] is None or fast["time_us"] is None:
        return None
    return slow["time_us"] / fast["time_us"]


# ------------------------------------------------------------ the demo

def run(console=None, lengths=LENGTHS, skip=None) -> common.DemoResult:
    """lengths: the row lengths to run (the shortest is the very-short case; the document's
    conclusion is checked at those of LONG among them, else at the longest). skip: the
    (op, columns, way) launches left out, NOT_RUN unless given (() runs every one)."""
    skip = set(NOT_RUN if skip is None else skip)
    lengths = tuple(sorted(lengths))
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(16)
    skipped = triton_missing()
    ways = [w for w in WAYS if w != "triton" or not skipped]
    table = {}
    for cols in lengths:
        x = rng.standard_normal((ELEMENTS // cols, cols)).astype(np.float32)
        w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
        for op in ("softmax", "layernorm"):
            for way in ways:
                if (op, cols, way) not in skip:
                    table[op, cols, way] = measure(op, way, x, w, b)
    for (op, cols, way), m in table.items():
        if cols == lengths[-1] and way != "triton":
            result.runs.append(m["run"])
    result.figures.update(table={k: {n: v for n, v in m.items() if n != "run"} for k, m in table.items()},
                          triton_skipped=skipped, lengths=lengths,
                          speedup={(op, cols, way): speedup(table, op, cols, way) for op, cols, way in table
                                   if way != "thread"})
    add_rows(result, table, ways, lengths)
    if console is not None:
        common.header(console, result, CLAIM)
        rows = ", ".join(f"{ELEMENTS // c:,} rows of {c}" for c in lengths)
        common.say(console, f"  Each batch is {ELEMENTS:,} floats: {rows} columns. One thread per row launches a "
                            f"thread for every row ({ELEMENTS // lengths[-1]} at {lengths[-1]} columns), one warp "
                            f"per row 32 times as many, both in blocks of {THREADS}; Triton's kernels are launched "
                            "as its tutorials launch them.")
        if skipped:
            common.say(console, "  ", (f"Triton's row is skipped: {skipped}.", "yellow"))
        for op in ("softmax", "layernorm"):
            console.print(rows_table(op, table, ways, lengths, skip))
        console.print(common.figures_table(result))
    return result


def long_lengths(lengths) -> tuple:
    """Where the document's conclusion is checked: the lengths of LONG that ran, else the longest."""
    return tuple(c for c in LONG if c in lengths) or lengths[-1:]


def add_rows(result, table, ways, lengths):
    long_cols = lengths[-1]
    every_ok = all(m["correct"] and m["written"] for m in table.values())
    result.add("every output element written and equal to NumPy's (softmax, layer norm)",
               "yes" if every_ok else "no", "(same result every way)", every_ok)
    for op in ("softmax", "layernorm"):
        for cols in long_lengths(lengths):
            s = speedup(table, op, cols, "warp")
            if s is None:
                continue
            t, w = table[op, cols, "thread"], table[op, cols, "warp"]
            result.add(f"{op}, {cols} columns: predicted, thread vs warp per row",
                       f"{t['time_us']:.2f} vs {w['time_us']:.2f} us: warp {s:.1f}x faster",
                       "the cooperative pattern wins", s > 1)
        short = lengths[0]
        s = speedup(table, op, short, "warp")
        if s is not None:
            t, w = table[op, short, "thread"], table[op, short, "warp"]
            verdict = f"warp {s:.2f}x faster" if s > 1 else f"thread {1 / s:.2f}x faster"
            result.add(f"{op}, {short} columns (very short rows): thread vs warp per row",
                       f"{t['time_us']:.2f} vs {w['time_us']:.2f} us: {verdict}",
                       "(not claimed: lanes idle, 10 shuffles a row)", True)
    soft = {cols: table["softmax", cols, "warp"] for cols in lengths}
    thread = table["softmax", long_cols, "thread"]
    result.add(f"softmax, {long_cols} columns: global sectors per load request, thread vs warp",
               f"{thread['sectors']:.1f} vs {soft[long_cols]['sectors']:.1f}",
               "adjacent lanes, adjacent addresses: 32 vs 4", thread["sectors"] == 32 and soft[long_cols]["sectors"] == 4)
    short = soft[lengths[0]]
    result.add(f"warp per row: SIMT efficiency at {lengths[0]} vs {long_cols} columns",
               f"{common.pct(short['lanes'] / 32)} vs {common.pct(soft[long_cols]['lanes'] / 32)}",
               "(lanes past a short row idle)", short["lanes"] < 0.75 * soft[long_cols]["lanes"])
    result.add("warp per row: shuffles per row, softmax and layer norm",
               f"{soft[long_cols]['shuffles_per_row']:.0f} and {table['layernorm', long_cols, 'warp']['shuffles_per_row']:.0f}",
               "5 per reduction (16, 8, 4, 2, 1), two reductions",
               soft[long_cols]["shuffles_per_row"] == 10 == table["layernorm", long_cols, "warp"]["shuffles_per_row"])
    if "triton" in ways:
        tri = [table[op, long_cols, "triton"] for op in ("softmax", "layernorm")]
        faster = [speedup(table, op, long_cols, "triton") for op in ("softmax", "layernorm")]
        result.add(f"Triton, {long_cols} columns: shuffles per row; faster than a thread per row",
                   f"{tri[0]['shuffles_per_row']:.0f} and {tri[1]['shuffles_per_row']:.0f}; "
                   + ", ".join(f"{f:.1f}x" for f in faster if f is not None),
                   "Triton generates the cooperative pattern",
                   all(t["shuffles_per_row"] > 0 for t in tri) and all(f and f > 1 for f in faster))


def rows_table(op: str, table, ways, lengths, skip=tuple(NOT_RUN)):
    from ..report.terminal import box, table as make_table
    titles = ("columns", "way", "SIMT eff.", "sectors/req", "SHFL/row", "warp inst/row", "predicted", "vs thread/row")
    t = make_table(f"{'row softmax' if op == 'softmax' else 'layer norm'}: predicted on {common.GPU.upper()}",
                   [(title, dict(justify="left" if title == "way" else "right")) for title in titles],
                   box=box.SIMPLE_HEAD)
    dash = ("-", "dim")
    for cols in lengths:
        for way in ways:
            m = table.get((op, cols, way))
            if m is None:
                t.add_row(str(cols) if way == ways[0] else "", WAY_TITLES[way], dash, dash, dash, dash,
                          ("not run", "dim"))
                continue
            s = speedup(table, op, cols, way) if way != "thread" else None
            t.add_row(str(cols) if way == ways[0] else "", WAY_TITLES[way], common.pct(m["lanes"] / 32),
                      f"{m['sectors']:.1f}", f"{m['shuffles_per_row']:.1f}", f"{m['issued_per_row']:.1f}",
                      "-" if m["time_us"] is None else f"{m['time_us']:.2f} us",
                      "" if s is None else (f"{s:.1f}x faster", "green") if s > 1 else (f"{1 / s:.1f}x slower", "red"))
        t.add_section()
    notes = [NOT_RUN[key] for key in sorted(skip) if key in NOT_RUN and key[0] == op and key[1] in lengths
             and key[2] in ways]
    t.caption = ("SIMT efficiency: active lanes per warp instruction / 32. sectors/req: 32-byte sectors per "
                 "global load request (4: a warp reads 128 contiguous bytes). SHFL/row: shfl.sync warp "
                 "instructions executed per row. Counts are of PTX instructions. Predicted: warpsim's timing "
                 f"model; Triton compiles for the predicted GPU's architecture (sm_{triton_arch()})." +
                 "".join(f" {n}." for n in notes))
    return t
