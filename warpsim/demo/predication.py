"""Predication: a short conditional becomes a select, a long one stays a branch."""

from __future__ import annotations

import numpy as np

from . import common

NAME = "predication"
TITLE = "Predication"
CLAIM = """
For short conditional bodies the compiler often emits no branch: a ternary such
as y = (x > 0) ? x : 0.1f * x becomes a compare and a select, with no control
flow and no divergence. Both sides are evaluated, which is cheap when they are a
handful of instructions. A long body stays a branch: when lanes disagree the
warp executes both sides, one after the other.
"""
KERNELS = "predication.cu"
N, THREADS, STEPS = 256, 128, 16


def ptx_on_line(fn, kernel: str, source_line: int) -> list:
    """The PTX instructions of one kernel that carry a source line (the compiler's answer)."""
    body = fn.loaded_module.module.functions[kernel].body
    return [ins for ins in body if ins.loc is not None and ins.loc.line == source_line]


def _control(opcodes) -> str:
    """The compare / select / branch opcodes among a line's PTX, in order ('no bra' if none)."""
    shown = list(dict.fromkeys(op for op in opcodes if op in ("setp", "selp", "bra")))
    return " + ".join(shown) + ("" if "bra" in shown else ", no bra")


def sass_on_lines(fn, kernel: str, first: int, last: int) -> list:
    """The SASS ptxas made of source lines first..last (what the GPU runs), from the kernel's cubin."""
    from ..sass import sass_of
    function = sass_of(fn.loaded_module).kernel(kernel)
    return [ins for ins in function.instructions if ins.source and first <= ins.source[1] <= last]


def _sass_control(instructions) -> str:
    """How the SASS decides: selects, predicated instructions, branches and convergence barriers."""
    shown = []
    for ins in instructions:
        if ins.opcode in ("SEL", "FSEL", "BRA", "BSSY", "BSYNC") or (ins.is_guarded and ins.opcode != "EXIT"):
            shown.append(f"@P {ins.opcode}" if ins.is_guarded else ins.opcode)
    shown = list(dict.fromkeys(shown))
    return " + ".join(shown) + ("" if "BRA" in shown else ", no BRA")


def partial_issues(run) -> int:
    """Warp instructions issued while some of the warp's live lanes sat masked off."""
    t = run.trace
    m = t.matrix()
    live = t.live_lanes[:m.shape[0], None]
    return int((~m.mask & (m.data < live)).sum())


def run(console=None) -> common.DemoResult:
    from .. import api
    result = common.DemoResult(NAME, TITLE)
    rng = np.random.default_rng(11)
    x = rng.standard_normal(N).astype(np.float32)       # signs at random: lanes disagree
    lines = {"leaky_relu": common.source_line_of(KERNELS, "? v : 0.1f * v"),
             "long_branch": common.source_line_of(KERNELS, "if (v > 0.f) {")}
    runs, evidence = {}, {}
    for kernel, extra in (("leaky_relu", ()), ("long_branch", (np.int32(STEPS),))):
        y = api.zeros(N, dtype=np.float32)
        runs[kernel] = common.launch(KERNELS, kernel, N // THREADS, THREADS,
                                     (api.asarray(x), y, np.int32(N), *extra))
        result.runs.append(runs[kernel])
        evidence[kernel] = ptx_on_line(runs[kernel].fn, kernel, lines[kernel])
        if kernel == "leaky_relu":
            assert np.array_equal(y.get(), np.where(x > 0, x, np.float32(0.1) * x))
    ops = {k: [ins.opcode for ins in v] for k, v in evidence.items()}
    body_end = common.source_line_of(KERNELS, "y[i] = v;")           # the long branch's join
    sass = {"leaky_relu": sass_on_lines(runs["leaky_relu"].fn, "leaky_relu", lines["leaky_relu"],
                                        lines["leaky_relu"]),
            "long_branch": sass_on_lines(runs["long_branch"].fn, "long_branch", lines["long_branch"] - 1,
                                         body_end)}
    sass_ops = {k: [ins.opcode for ins in v] for k, v in sass.items()}
    short_sass = "BRA" not in sass_ops["leaky_relu"] and any(
        ins.opcode in ("SEL", "FSEL") or ins.is_guarded for ins in sass["leaky_relu"])
    long_sass = all(op in sass_ops["long_branch"] for op in ("BSSY", "BRA", "BSYNC"))
    short_select = "selp" in ops["leaky_relu"] and "bra" not in ops["leaky_relu"]
    long_branch = "bra" in ops["long_branch"]
    partial = {k: partial_issues(r) for k, r in runs.items()}
    divergent = {k: r.metric("smsp__sass_branch_targets_threads_divergent.sum") for k, r in runs.items()}
    result.figures.update(short_sass=sass_ops["leaky_relu"], long_sass=sass_ops["long_branch"],
                          short_sass_predicated=short_sass, long_sass_branches=long_sass,
                          short_opcodes=ops["leaky_relu"], long_opcodes=ops["long_branch"],
                          short_partial_issues=partial["leaky_relu"],
                          long_partial_issues=partial["long_branch"],
                          short_divergent_branches=divergent["leaky_relu"],
                          long_divergent_branches=divergent["long_branch"],
                          short_lanes=runs["leaky_relu"].lanes_per_instruction,
                          long_lanes=runs["long_branch"].lanes_per_instruction)
    common.add_predicted(result, "long if/else vs ternary", runs["long_branch"], runs["leaky_relu"],
                         "(both sides of a long body)")
    result.add(f"ternary (line {lines['leaky_relu']}) compiles to", _control(ops["leaky_relu"]),
               "compare + select, no branch", short_select)
    result.add(f"long if/else (line {lines['long_branch']}) compiles to", _control(ops["long_branch"]),
               "a branch", long_branch)
    result.add("the SASS the GPU runs for the ternary (ptxas)", _sass_control(sass["leaky_relu"]),
               "a select or a predicate, no branch", short_sass)
    result.add("the SASS for the long if/else", _sass_control(sass["long_branch"]),
               "a branch (and where lanes reconverge)", long_sass)
    result.add("instructions issued with lanes masked off: ternary",
               str(partial["leaky_relu"]), "0 (no divergence)", partial["leaky_relu"] == 0)
    result.add("instructions issued with lanes masked off: long branch",
               str(partial["long_branch"]), "both sides run", partial["long_branch"] > 0)
    if divergent["long_branch"] is not None:
        result.add("divergent branches (smsp__sass_branch_targets_threads_divergent)",
                   f"{divergent['leaky_relu']} vs {divergent['long_branch']}", "0 vs > 0",
                   not divergent["leaky_relu"] and divergent["long_branch"] > 0)
    result.add("mean active lanes per instruction, ternary vs long",
               f"{runs['leaky_relu'].lanes_per_instruction:.1f} vs {runs['long_branch'].lanes_per_instruction:.1f}",
               "32 vs fewer", runs["leaky_relu"].lanes_per_instruction == 32)
    if console is not None:
        from ..report.terminal import table as make_table
        common.header(console, result, CLAIM)
        table = make_table("The PTX NVRTC emitted for the conditional's source line",
                           ["kernel", ("PTX line", dict(justify="right")), "instruction"])
        for kernel, instructions in evidence.items():
            for ins in instructions:
                text = str(ins)
                style = "bold green" if ins.opcode == "selp" else "bold red" if ins.opcode == "bra" else ""
                table.add_row(kernel, str(ins.line), (text, style))
        console.print(table)
        sass_table = make_table("The SASS ptxas made of the ternary's line (what the GPU runs)",
                                [("offset", dict(justify="right")), "SASS"])
        for ins in sass["leaky_relu"]:
            sass_table.add_row(f"{ins.offset:04x}", ins.text)
        console.print(sass_table)
        console.print(common.figures_table(result))
    return result
