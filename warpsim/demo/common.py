"""What every demo needs: its kernels, launches that are traced (and profiled
when warpsim.profile is available), and a way to put a measured figure beside
the document's claim.

A demo module has NAME, TITLE, CLAIM (what ../shared/simt-execution.md says)
and `run(console) -> DemoResult`. It prints what it shows on a rich console and
returns its figures, raw (for tests) and as rows of measured vs document.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from ..api.args import pack_arguments
from ..machine.events import LaunchObserver
from ..report.activity import ActivityTrace
from ..sessions import SessionStack, observer_source

DOCUMENT = "simt-execution.md"
GPU = "h200"                    # the GPU the demos predict times for (warpsim.settings(gpu=...) overrides)


# ------------------------------------------------------------ results

@dataclass
class Figure:
    """One measured figure beside what the document says."""
    what: str
    measured: str
    document: str
    ok: bool = True


@dataclass
class DemoResult:
    name: str
    title: str
    claim: str = ""                                   # the demo's CLAIM (the document's words)
    figures: dict = field(default_factory=dict)       # raw values, by name (tests read these)
    rows: list = field(default_factory=list)          # Figures, in the order shown
    runs: list = field(default_factory=list)          # Runs whose traces make the charts

    def add(self, what: str, measured: str, document: str, ok: bool = True) -> Figure:
        row = Figure(what, measured, document, bool(ok))
        self.rows.append(row)
        return row

    @property
    def ok(self) -> bool:
        return all(row.ok for row in self.rows)


# ------------------------------------------------------------ kernels

def kernel_path(filename: str) -> str:
    """The installed path of one of the demo kernels (package data)."""
    return str(resources.files(__package__).joinpath("kernels", filename))


def kernel_source(filename: str) -> str:
    return resources.files(__package__).joinpath("kernels", filename).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def module(filename: str, options: tuple = ()):
    """The demo kernel file compiled with NVRTC (once per process), source name = its path."""
    from .. import api
    return api.RawModule(path=kernel_path(filename), options=options)


def ptx_instructions(fn) -> dict:
    """PTX line -> Instruction, for a kernel's module (to name what the trace recorded)."""
    table = {}
    for function in fn.loaded_module.module.functions.values():
        for ins in function.body:
            table[ins.line] = ins
    return table


def loop_ptx_lines(fn) -> set:
    """PTX lines of every loop body of a kernel's module: the instructions from a
    label to a branch back to it."""
    lines = set()
    for function in fn.loaded_module.module.functions.values():
        for ins in function.body:
            if ins.opcode != "bra" or not ins.srcs:
                continue
            start = function.labels.get(getattr(ins.srcs[0], "name", None))
            if start is not None and start <= ins.index:
                lines.update(i.line for i in function.body[start:ins.index + 1])
    return lines


def source_line_of(filename: str, needle: str) -> int:
    """1-based line of the first line of a demo kernel containing `needle`."""
    for number, text in enumerate(kernel_source(filename).splitlines(), 1):
        if needle in text:
            return number
    raise ValueError(f"{filename} has no line containing {needle!r}")


# ------------------------------------------------------------ launches

@dataclass
class Run:
    """One traced launch: what the machine reported and the lane activity."""
    label: str
    kernel: str
    result: object                  # machine LaunchResult (None for a Triton launch)
    trace: ActivityTrace
    fn: object                      # the api Function that was launched
    profile: object = None          # the profiler's launch record, when profiling is available

    @property
    def issued(self) -> int:
        """Warp instructions issued by the whole launch."""
        if self.result is None:
            return int(self.metric("smsp__inst_executed.sum", 0))
        return int(self.result.warp_instructions)

    @property
    def thread_instructions(self) -> int:
        if self.result is None:
            return int(self.metric("smsp__thread_inst_executed.sum", 0))
        return int(self.result.thread_instructions)

    @property
    def lanes_per_instruction(self) -> float:
        return self.thread_instructions / self.issued if self.issued else 0.0

    @property
    def timing(self):
        """The timing model's prediction for this launch on GPU (None without the profiler)."""
        return getattr(self.profile, "timing", None)

    def metric(self, name: str, default=None):
        """A profiler metric by its Nsight Compute name (None when the profiler is absent)."""
        metrics = getattr(self.profile, "metrics", None) or {}
        return metrics.get(name, default)


def launch(filename: str, kernel: str, grid, block, args, shared_mem: int = 0, label: str = "",
           observers=(), options: tuple = (), max_warps: int = 64, max_issues: int = 4096,
           level: str | None = None) -> Run:
    """Launch a demo kernel with a lane-activity trace (and the profiler, when there is one)."""
    fn = module(filename, options).get_function(kernel)
    trace = ActivityTrace(max_warps=max_warps, max_issues=max_issues, label=label or kernel)
    params = pack_arguments(fn.kernel_name, fn.params, tuple(args))
    grid = grid if isinstance(grid, tuple) else (grid,)
    block = block if isinstance(block, tuple) else (block,)
    with _predicting(), _profiler(level) as prof:
        result = fn.loaded_module.launch(fn.kernel_name, grid, block, params, shared_mem=shared_mem,
                                         observers=[trace, *observers])
    launches = getattr(prof, "launches", None) or [None]
    if launches[-1] is not None and getattr(launches[-1], "activity", None) is None:
        launches[-1].activity = trace        # the report draws the chart from it
    return Run(label or kernel, kernel, result, trace, fn, launches[-1])


def launch_triton(fn, grid, *args, label: str = "", observers=(), max_warps: int = 64, max_issues: int = 4096,
                  level: str | None = None, **kwargs) -> Run:
    """Launch a @triton.jit kernel through `warpsim.triton` (Triton's own compiler, for the
    architecture of the GPU the launch is predicted on: sm_90 for the H200), traced
    and profiled like `launch`: the Run has no machine result, its counts come from the profile."""
    from ..api import triton as wt
    trace = ActivityTrace(max_warps=max_warps, max_issues=max_issues, label=label or fn.__name__)
    with _predicting(), _profiler(level) as prof, _observing((trace, *observers)):
        wt.launch(fn, grid, *args, **kwargs)
    launches = getattr(prof, "launches", None) or [None]
    if launches[-1] is not None and getattr(launches[-1], "activity", None) is None:
        launches[-1].activity = trace
    return Run(label or fn.__name__, fn.__name__, None, trace, None, launches[-1])


_OBSERVERS = SessionStack("warpsim_demo_observers")


@observer_source
def _demo_observers(launch) -> tuple:
    """The observers of a launch made inside `_observing` (one that another layer makes)."""
    active = _OBSERVERS.active()
    return active[-1] if active else ()


@contextlib.contextmanager
def _observing(observers: tuple):
    token = _OBSERVERS.push(tuple(observers))
    try:
        yield
    finally:
        _OBSERVERS.pop(token)


class OpcodeCounter(LaunchObserver):
    """Observer: warp-level executions of the PTX instructions with these opcodes (e.g. shfl)."""

    def __init__(self, opcodes):
        self.opcodes = frozenset(opcodes)
        self.executions = 0
        self._per_block: dict = {}

    def block_executed(self, ctx, block, idx, warps):
        here = self._per_block.get(block.gid)
        if here is None:
            here = self._per_block[block.gid] = sum(ins.opcode in self.opcodes for ins in block.instructions)
        self.executions += here * len(warps)


def _predicting():
    """Predict times on GPU unless the caller chose a GPU already."""
    from ..settings import current, settings
    return contextlib.nullcontext() if current().gpu else settings(gpu=GPU)


def predict(filename: str, kernel: str, grid, block, args, shared_mem: int = 0, options: tuple = ()):
    """The timing model's prediction for a launch too large to run here whole: a sample of its
    CTAs runs (and writes memory as they would); the rest are taken to behave alike."""
    from ..settings import current
    from ..timing import predict as predict_launch
    fn = module(filename, options).get_function(kernel)
    params = pack_arguments(fn.kernel_name, fn.params, tuple(args))
    grid = grid if isinstance(grid, tuple) else (grid,)
    block = block if isinstance(block, tuple) else (block,)
    return predict_launch(fn.loaded_module, fn.kernel_name, grid, block, params, shared_mem,
                          gpu=current().gpu or GPU)


def us(timing) -> str:
    """'3.19 us': a Timing's predicted time."""
    return "-" if timing is None else f"{timing.time_s * 1e6:.2f} us"


def timing_of(x):
    """The Timing of a Run, or x itself when it is one (or None)."""
    return x.timing if isinstance(x, Run) else x


def add_predicted(result: DemoResult, what: str, slow, fast, document: str = "(predicted)", check=None,
                  figure: str = ""):
    """A row 'predicted on H200: what' with both times and slow/fast; check(ratio) says whether it
    agrees with the document (no check: a figure the document states nothing about). Returns the
    ratio (None when there is no timing), kept in result.figures[figure] when named."""
    slow, fast = timing_of(slow), timing_of(fast)
    if slow is None or fast is None:
        return None
    ratio = slow.time_s / fast.time_s
    if figure:
        result.figures[figure] = ratio
    result.add(f"predicted on {(slow.gpu or GPU).upper()}: {what}", f"{us(slow)} vs {us(fast)}: {ratio:.2f}x",
               document, True if check is None else check(ratio))
    return ratio


def predicted(run: Run) -> str:
    """'3.19 us (2,357 cycles)': a launch's predicted time on the demos' GPU."""
    t = run.timing
    return "-" if t is None else f"{t.time_s * 1e6:.2f} us ({t.cycles:,.0f} cycles)"


def _profiler(level: str | None = None):
    """warpsim.profile() when the profiler is installed, else a do-nothing context."""
    try:
        from ..profiler import profile
    except ImportError:
        return contextlib.nullcontext()
    return profile(level=level)


def lanes_on_lines(run: Run, lines) -> float:
    """Mean active lanes per issued warp instruction attributed to these source lines."""
    return run.trace.lanes_per_instruction(lines)


def lanes_on_ptx_lines(run: Run, ptx_lines) -> float:
    """Mean active lanes per issued warp instruction at these PTX lines (recorded warps)."""
    t = run.trace
    m = t.matrix()
    here = ~m.mask & np.isin(t.ptx_line[:m.shape[0], :m.shape[1]], sorted(ptx_lines))
    values = m.data[here]
    return float(values.mean()) if len(values) else 0.0


def by_opcode(run: Run, opcodes) -> np.ndarray:
    """Active lanes of every recorded issue of the given PTX opcodes."""
    table = ptx_instructions(run.fn)
    wanted = np.array(sorted(line for line, ins in table.items() if ins.opcode in opcodes) or [-1])
    t = run.trace
    m = t.matrix()
    lines_here = t.ptx_line[:m.shape[0], :m.shape[1]]
    return m.data[~m.mask & np.isin(lines_here, wanted)]


# ------------------------------------------------------------ printing

def strip_width(console) -> int:
    """Cells for a lane-activity strip on this console (room for the labels around it)."""
    return max(20, min(90, console.width - 42))


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def say(console, *parts, **options):
    """Print a line made of plain str parts and (text, style) pairs. Demos print only through this
    and warpsim.report.terminal's builders, so no figure, hint or source text is read as markup."""
    from ..report.terminal import text
    console.print(text(*parts), **options)


def mark(ok: bool) -> tuple:
    """A green tick or a red cross, as a table cell."""
    return ("✓", "green") if ok else ("✗", "red")


def figures_table(result: DemoResult):
    from ..report.terminal import table
    figures = table(f"{result.title}: measured on warpsim vs the document",
                    ["figure", ("measured", dict(justify="right", style="bold")),
                     (f"{DOCUMENT} says", dict(justify="right")), ("", dict(justify="center"))],
                    show_lines=False, expand=False)
    for row in result.rows:
        figures.add_row(row.what, row.measured, row.document, mark(row.ok))
    return figures


def header(console, result: DemoResult, claim: str):
    from ..report.terminal import panel, text
    console.print()
    title = text((result.title, "bold"), f"  (warpsim demo {result.name})", end="")
    console.print(panel(" ".join(claim.split()), title=title, title_align="left", border_style="cyan",
                        expand=True))
