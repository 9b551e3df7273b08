"""`with warpsim.profile() as prof:` profiles every launch made inside the block.

    with warpsim.profile() as prof:
        kernel((64,), (256,), (x, y, n))
    launch = prof.launches[0]
    launch.metrics["smsp__thread_inst_executed_per_inst_executed.ratio"]   # 32.0
    launch.lines            # per source line: LineStats
    print(launch)           # the report; launch.source_view() for the annotated source
    prof.to_csv()           # Nsight Compute's --csv layout

Metrics carry Nsight Compute's names (warpsim.metrics.names lists them with
how each is computed). By default (level='sass') every launch's SASS (ptxas's
code for it) runs, and the instruction counts are the SASS ones the hardware
reports (validation/sass_counters/comparison.md): alone, in place of the PTX
run, where the SASS executor covers the launch (sass/alone.py); beside the PTX
run on a copy of memory, the two compared, under settings(sass_verify=True) or
where a sanitizer or another PTX observer watches (sass/replay.py). A launch the
SASS executor cannot cover keeps PTX-level counts, with a note.
level='ptx' counts PTX instructions. Memory requests, sectors, wavefronts and
bank conflicts come from the addresses at either level. Profiling does not
change what a kernel computes (bench/profiling_overhead.py, bench/sass_profiling.py).
"""

from __future__ import annotations

import csv
import io
import os
import re
import weakref

import numpy as np

from .metrics.activity import ActivityTrace, SassActivityTrace
from .metrics.code_view import code_view
from .metrics.counters import LaunchCounters, SassLaunchCounters
from .metrics.lines import line_table
from .metrics.names import BY_NAME, SECTIONS, compute_metrics, unknown_metrics
from .metrics.occupancy import get_arch, occupancy
from .metrics.registers import ptxas_arch, registers_per_thread
from .ptx.names import demangle
from .report.console import PIPE_WIDTH   # str(profile) as `warpsim profile` prints to a pipe: metric names whole
from .sass import sass_of
from .sass.alone import SassAloneRun
from .sass.replay import ReplayRequest   # registers its observer source before the profiler's
from .sass.toolchain import requested_ptxas_version, tool_version
from .sessions import SessionStack, observer_source
from .toolchains import describe_toolchain

__all__ = ["profile", "Profiler", "LaunchProfile", "LaunchSelection", "format_value", "CSV_HEADER"]

CSV_HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name",
              "Metric Unit", "Metric Value"]

def format_value(value) -> str:
    """As ncu prints values: integers with thousands separators, others with two decimals."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{float(value):,.2f}"


display_name = demangle      # the kernel name reports show


# ---------------------------------------------------------------- totals of one launch

MEMORY_KEYS = ("requests", "sectors", "lines", "wavefronts", "ideal")


def launch_totals(counters, registers, occ, arch, static_shared: int) -> dict:
    t = {"inst": 0, "thread_inst": 0, "pred_on": 0, "branches": 0, "divergent": 0, "barrier_inst": 0}
    for _, _, ins, warps, threads, pred_on in counters.instruction_rows():
        t["inst"] += warps
        t["thread_inst"] += threads
        t["pred_on"] += pred_on
        if ins.opcode in ("bar", "barrier", "BAR") and "warp" not in ins.mods:
            t["barrier_inst"] += warps
    for _, _, executions, divergent in counters.branch_rows():
        t["branches"] += executions
        t["divergent"] += divergent
    for space in ("global", "shared", "local"):
        for op in ("ld", "st", "atom", "red"):
            for key in MEMORY_KEYS:
                t[f"{space}_{op}_{key}"] = 0
    for site in counters.sites.values():
        if site.space not in ("global", "shared", "local"):
            continue
        prefix = f"{site.space}_{site.op}_"
        t[prefix + "requests"] += site.requests
        t[prefix + "sectors"] += site.sectors
        t[prefix + "lines"] += site.lines
        t[prefix + "wavefronts"] += site.wavefronts
        t[prefix + "ideal"] += site.ideal_wavefronts
    grid, block = counters.grid, counters.block
    t["grid_size"] = grid[0] * grid[1] * grid[2]
    t["block_size"] = block[0] * block[1] * block[2]
    t["warps_launched"] = t["grid_size"] * (-(-t["block_size"] // 32))
    t.update(registers=max(registers.registers, arch.min_registers_per_thread),
             registers_source=registers.source,
             shared_static=static_shared, shared_dynamic=counters.dynamic_shared,
             shared_driver=arch.reserved_shared_per_block, shared_config=occ.shared_config,
             limit_registers=occ.limit_registers, limit_shared_mem=occ.limit_shared_mem,
             limit_warps=occ.limit_warps, limit_blocks=occ.limit_blocks,
             occupancy_pct=occ.occupancy_pct, limiter=", ".join(occ.limiters))
    return t


_RESOURCES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def kernel_resources(loaded, kernel: str) -> tuple:
    """(arch, RegisterCount, static shared bytes) of a loaded kernel, computed once per ptxas
    version asked for (`cuda` / `ptxas_version`: registers come from the ptxas that makes the SASS)."""
    per_module = _RESOURCES.setdefault(loaded, {})
    key = (kernel, requested_ptxas_version(None))
    found = per_module.get(key)
    if found is None:
        module = loaded.module
        target = ptxas_arch(module)      # sm_90a stays sm_90a: ptxas refuses its PTX for plain sm_90
        arch = get_arch(target)
        found = per_module[key] = (arch, registers_per_thread(module, kernel, target),
                                      loaded.program.kernel_static_shared.get(kernel, 0))
    return found


def build_launch_profile(counters, sass=None, level_note: str = "") -> "LaunchProfile":
    """Everything a report needs, computed once when the launch ends.

    counters: the PTX run's LaunchCounters; sass: the SassLaunchCounters of the launch's
    SASS run when it covered the launch (its counts then replace the PTX-level ones).
    """
    loaded = counters.loaded_module
    arch, registers, static = kernel_resources(loaded, counters.kernel)
    block = counters.block
    occ = occupancy(block[0] * block[1] * block[2], registers.registers,
                    static + counters.dynamic_shared, arch)
    counted = sass if sass is not None else counters
    totals = launch_totals(counted, registers, occ, arch, static)
    launch = LaunchProfile(
        kernel_name=counters.kernel, grid=tuple(counters.grid), block=tuple(block),
        shared_mem=counters.dynamic_shared, metrics=compute_metrics(totals),
        lines=line_table(counted), histogram=counted.lane_histogram(), registers=registers,
        occupancy=occ, arch=arch.name, module_name=loaded.name,
        sources=dict(getattr(loaded, "sources", {}) or {}),
        seconds=getattr(counters.result, "seconds", 0.0))
    launch.activity = getattr(counters, "activity", None)   # ActivityTrace for the HTML report's chart
    if launch.activity is not None:
        launch.activity.trim()
    launch.level = "sass" if sass is not None else "ptx"
    launch.level_note = level_note
    launch.toolchain = _toolchain_of(loaded, registers, sass is not None)
    launch.timing = _predicted_timing(counters)
    if launch.timing is not None:                         # ncu's names for the predicted figures
        launch.metrics.update((k, v) for k, v in launch.timing.metrics().items() if k in BY_NAME)
    launch.sass_counts = sass.counts_by_offset() if sass is not None else None
    if sass is not None:            # the rules where SASS-level counting differs from the PTX formulas
        launch.metrics.update((k, v) for k, v in sass.metric_values().items() if k in launch.metrics)
    if sass is not None:                                    # the SASS is at hand: the side-by-side view
        launch.code = code_view(loaded, counters.kernel, launch.sass_counts)
    return launch


def _toolchain_of(loaded, registers, at_sass_level: bool) -> str:
    """What made the launch's code: the PTX's compiler (from its header) and the ptxas of the SASS
    (at SASS level) or of the register count."""
    text = getattr(getattr(loaded, "module", None), "text", "") or ""
    version = ""
    if at_sass_level:
        version = getattr(sass_of(loaded), "ptxas_version", "")
    elif registers.source == "ptxas" and registers.detail:
        version = tool_version(registers.detail)
    return describe_toolchain(text, version)


# ---------------------------------------------------------------- one launch

class LaunchProfile:
    """The profile of one kernel launch: metrics by Nsight Compute name, lines, histogram."""

    def __init__(self, kernel_name, grid, block, shared_mem, metrics, lines, histogram, registers,
                 occupancy, arch, module_name="", sources=None, seconds=0.0, id=0):
        self.id = id
        self.kernel_name, self.grid, self.block, self.shared_mem = kernel_name, grid, block, shared_mem
        self.metrics = metrics              # name -> value
        self.lines = lines                  # [LineStats], file/line order
        self.histogram = histogram          # histogram[k]: warp instructions with k active lanes
        self.registers = registers          # RegisterCount (ptxas or estimate)
        self.occupancy = occupancy          # metrics.occupancy.Occupancy
        self.arch, self.module_name = arch, module_name
        self.sources = sources or {}        # file name -> text, for code compiled from a string
        self.seconds = seconds              # simulation time of the launch
        self.activity = None                # report.activity.ActivityTrace, when one was recorded
        self.selected = None                # metric names a report shows (None: all)
        self.level = "ptx"                  # 'sass': counts from the SASS run; 'ptx': of PTX instructions
        self.level_note = ""                # why the level is what it is (e.g. the SASS run's fallback)
        self.sass_counts = None             # SASS offset -> warp-level executions, at level 'sass'
        self.timing = None                  # warpsim.timing.Timing when a GPU is chosen (settings gpu)
        self.code = None                    # [metrics.code_view.CodeRow]: source, PTX, SASS side by side
        self.execution = "ptx"              # what ran: 'sass' (alone), 'ptx+sass' (both, memory compared), 'ptx'
        self.execution_note = ""            # why (e.g. why the PTX run stayed beside the SASS run)
        self.toolchain = ""                 # what made the code: 'NVRTC/NVVM 13.0.88 -> ptxas 13.0.88'

    @property
    def units(self) -> dict:
        return {name: BY_NAME[name].unit for name in self.metrics}

    def __getitem__(self, name: str):
        return self.metrics[name]

    def __repr__(self) -> str:
        return (f"<LaunchProfile {self.id}: {self.kernel_name} grid={self.grid} block={self.block}, "
                f"{len(self.metrics)} metrics>")

    # -------------------------------------------------------- tables

    def csv_rows(self, names=None) -> list:
        """Rows in Nsight Compute's --csv layout (metrics sorted by name, as ncu does)."""
        names = sorted(names or self.selected or self.metrics)
        cc = self.arch.replace("sm_", "")
        cc = f"{cc[:-1]}.{cc[-1]}"
        common = [str(self.id), str(os.getpid()), "python", "warpsim", self.kernel_name, "1", "7",
                  str(self.block).replace(",)", ")"), str(self.grid).replace(",)", ")"), "0", cc,
                  "Command line profiler metrics"]
        return [common + [n, BY_NAME[n].unit, format_value(self.metrics[n])]
                for n in names if n in self.metrics]

    def metrics_table(self, names=None):
        from .report.terminal import table
        names = names or self.selected
        t = table(f"{display_name(self.kernel_name)} metrics",
                  [("Metric Name", dict(no_wrap=True)), ("Metric Unit", dict(style="dim", no_wrap=True)),
                   ("Metric Value", dict(justify="right", no_wrap=True))])
        wanted = set(names) if names else None
        for section in SECTIONS:
            chosen = [BY_NAME[n] for n in self.metrics if BY_NAME[n].section == section
                      and (wanted is None or n in wanted)]
            if not chosen:
                continue
            t.add_row((section, "bold"), "", "")
            for m in chosen:
                t.add_row("  " + m.name, m.unit, format_value(self.metrics[m.name]))
        return t

    def histogram_table(self):
        from .report.terminal import table
        t = table("Active lanes per issued warp instruction",
                  [("lanes", dict(justify="right")), ("warp inst", dict(justify="right")),
                   ("", dict(no_wrap=True))])
        top = int(self.histogram.max()) or 1
        for k in range(1, 33):
            v = int(self.histogram[k])
            if v:
                t.add_row(str(k), f"{v:,}", "█" * max(1, round(30 * v / top)))
        return t

    def summary(self):
        m = self.metrics
        occ = self.occupancy
        regs = f"{m['launch__registers_per_thread']} registers/thread" + \
            (" (estimated from PTX: no usable ptxas)" if self.registers.is_estimate else " (ptxas)")
        level = f"  [{self.level.upper()}-level counts" + (f": {self.level_note}]" if self.level_note else "]")
        lines = [
            f"{display_name(self.kernel_name)}  grid {self.grid} x block {self.block}, {self.arch}{level}",
            f"  active threads per warp instruction  {m['smsp__thread_inst_executed_per_inst_executed.ratio']:.2f}"
            f" of 32 (SIMT efficiency {m['warpsim__simt_efficiency.pct']:.1f}%), "
            f"{m['smsp__sass_branch_targets_threads_divergent.sum']:,} divergent branches",
            f"  global sectors per request  load {m['l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio']:.2f}"
            f", store {m['l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio']:.2f}"
            f";  shared bank conflicts  load {m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']:,}"
            f", store {m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum']:,}",
            f"  theoretical occupancy  {occ.occupancy_pct:.1f}% ({occ.active_warps}/{occ.max_warps} warps, "
            f"limited by {m['warpsim__occupancy_limiter'] or '-'}); {regs}",
        ]
        if self.toolchain:
            lines.append(f"  toolchain  {self.toolchain}")
        if self.level != "sass":
            lines.append("  counts are of PTX instructions (the hardware counts SASS)")
        if self.timing is not None:
            lines.append("  " + str(self.timing))
        from .report.terminal import text
        return text("\n".join(lines))

    def source_view(self, context: int = 2):
        """The kernel's source lines with their numbers beside them (a rich renderable)."""
        from .report.source_lines import source_view
        return source_view(self.lines, self.sources, context=context, title=display_name(self.kernel_name))

    def __rich_console__(self, console, options):
        from .report.source_lines import hot_lines_table
        from .report.terminal import rule
        yield rule(f"[{self.id}] {display_name(self.kernel_name)}", align="left")
        yield self.summary()
        yield self.metrics_table()
        if self.selected is None:
            yield self.histogram_table()
            if self.lines:
                yield hot_lines_table(self.lines)

    def render(self, width: int = PIPE_WIDTH, color: bool = False, source: bool = False) -> str:
        from .report.console import make_console
        from .report.terminal import print_report
        out = io.StringIO()
        console = make_console(file=out, width=width, color_system="standard" if color else None,
                               force_terminal=color, record=False)
        print_report(console, self)
        if source:
            print_report(console, self.source_view())
        return out.getvalue()

    def __str__(self) -> str:
        return self.render()

    def _repr_html_(self) -> str:
        from .report.html import render_profile_html
        return render_profile_html([self], title=f"warpsim profile: {self.kernel_name}")


# ---------------------------------------------------------------- the profiler

PROFILERS = SessionStack("warpsim_profilers")


@observer_source
def profiling_observers(launch) -> tuple:
    """Observers for one launch: one counter set shared by every active profiler that takes it
    (or none: a launch no profiler selects runs as without one)."""
    profilers = [profiler for profiler in PROFILERS.active() if profiler.takes(launch)]
    if not profilers:
        return ()

    replays = [profiler.sass_request.replay_for(launch) for profiler in profilers
               if profiler.sass_request is not None]
    replay = next((r for r in replays if r is not None), None)
    alone = replay if isinstance(replay, SassAloneRun) else None

    def deliver(counters):
        if alone is not None and alone.ran_alone:     # no PTX run: the SASS run's sample times it
            counters.timing_recorder, counters.activity = sass_timing, sass_activity
        built = {}
        for profiler in profilers:
            level = profiler.level if replay is not None else "ptx"
            if level not in built:
                built[level] = _profile_at(level, counters, replay, profiler)
            profiler.add_launch(built[level])

    counters = LaunchCounters(launch.loaded_module, launch.kernel, launch.grid, launch.block,
                              launch.shared_bytes, launch.dynamic_shared, on_finished=deliver)
    counters.activity = ActivityTrace()     # bounded lane-activity trace: the reports' chart
    counters.timing_recorder = _timing_recorder(launch)
    sass_timing = sass_activity = None
    if alone is not None:                   # the SASS run takes the launch alone (sass/alone.py)
        from .timing.sample import SassTimingRecorder
        sass_timing = _timing_recorder(launch, SassTimingRecorder)
        sass_activity = SassActivityTrace()
        alone.observers += [sass_activity] + ([sass_timing] if sass_timing is not None else [])
        alone.stand_for(counters, counters.activity, counters.timing_recorder)
    return (counters, counters.activity) + ((counters.timing_recorder,) if counters.timing_recorder else ())


def _profile_at(level: str, counters, replay, profiler) -> "LaunchProfile":
    """The launch's profile at `level`: SASS counts when the SASS run covered it, else PTX with a note."""
    if level != "sass":
        return build_launch_profile(counters)
    outcome = replay.outcome()
    sass = next((o for o in outcome.observers if isinstance(o, SassLaunchCounters)), None)
    alone = isinstance(replay, SassAloneRun) and replay.ran_alone
    if outcome.covered and sass is not None:
        profile = build_launch_profile(counters, sass=sass)
        profile.execution = "sass" if alone else "ptx+sass"
        profile.execution_note = outcome.note if alone else replay.kept_because
        return profile
    profile = build_launch_profile(counters, level_note=f"fell back to PTX: {outcome.note}")
    profile.execution_note = outcome.note
    return profile


def _timing_recorder(launch, kind=None):
    """A sampled-CTA recorder for the timing model when settings name a GPU (None otherwise): of
    the PTX run (LaunchTimingRecorder), or of the SASS run that takes the launch alone."""
    from .settings import current
    gpu = current().gpu
    if not gpu:
        return None
    from .errors import WarpsimError
    from .timing.sample import LaunchTimingRecorder
    try:
        return (kind or LaunchTimingRecorder)(launch.loaded_module, launch.kernel, launch.grid, launch.block,
                                              launch.dynamic_shared, gpu)
    except WarpsimError:            # no SASS for this kernel (no ptxas): no timing
        return None


def _predicted_timing(counters):
    recorder = getattr(counters, "timing_recorder", None)
    if recorder is None:
        return None
    if getattr(counters, "_timing", None) is None:
        counters._timing = recorder.timing()
    return counters._timing


LEVELS = ("sass", "ptx")


class LaunchSelection:
    """Which launches a profile takes, as Nsight Compute selects them: those of kernels whose name
    matches (`kernel_name`: ncu's --kernel-name, the function's name exactly, `ns::f` or `f`, or
    the mangled name; `regex:EXPR` searched in the readable and the mangled name; `contains`: any
    name containing the text), of those the ones after the first `skip`, at most `count`. The
    others run as without a profiler: no counters and no SASS run, so a program of thousands of
    launches costs what its selected ones cost."""

    def __init__(self, kernel_name: str | None = None, contains: str | None = None, skip: int = 0,
                 count: int | None = None):
        if skip < 0 or (count is not None and count < 0):
            raise ValueError(f"launch skip and count must not be negative (skip={skip}, count={count})")
        self.kernel_name, self.contains, self.skip, self.count = kernel_name, contains, skip, count
        self.pattern = None
        if kernel_name is not None and kernel_name.startswith("regex:"):
            try:
                self.pattern = re.compile(kernel_name[len("regex:"):])
            except re.error as error:
                raise ValueError(f"kernel name filter {kernel_name!r}: {error}") from None
        self.matched = 0              # launches whose kernel matched so far
        self._last = (None, False)    # (the launch last asked about, the answer): asked once per launch

    @property
    def everything(self) -> bool:
        return self.kernel_name is None and self.contains is None and not self.skip and self.count is None

    def to_dict(self) -> dict:
        return {"kernel_name": self.kernel_name, "contains": self.contains, "skip": self.skip, "count": self.count}

    def matches(self, kernel: str) -> bool:
        readable = display_name(kernel)
        if self.contains is not None and self.contains not in kernel and self.contains not in readable:
            return False
        if self.pattern is not None:
            return bool(self.pattern.search(readable) or self.pattern.search(kernel))
        if self.kernel_name is not None:
            return self.kernel_name in (kernel, readable, readable.rsplit("::", 1)[-1])
        return True

    def takes(self, launch) -> bool:
        """Whether this launch is profiled (the SASS run's session and the profiler's both ask)."""
        last, answer = self._last
        if last is launch:
            return answer
        answer = False
        if self.matches(launch.kernel):
            self.matched += 1
            answer = self.matched > self.skip and (self.count is None or self.matched <= self.skip + self.count)
        self._last = (launch, answer)
        return answer


class Profiler:
    """Collects a LaunchProfile for every launch made while it is active (a context manager).

    level: 'sass' counts the SASS the GPU runs, by running it alone where the SASS executor
    covers the launch, or (settings sass_verify=True, or a sanitizer on) beside the PTX run,
    checking both wrote the same memory (LaunchProfile.execution says which); a launch the SASS executor cannot cover (or one
    run under settings(scheduling='stack' or 'lowest-pc'), whose order the SASS run does not
    model) falls back to PTX-level counts, and its profile says why. 'ptx' counts PTX
    instructions and costs no SASS run. The default is $WARPSIM_PROFILE_LEVEL, else 'sass'.
    """

    def __init__(self, metrics=None, level: str | None = None, selection: LaunchSelection | None = None,
                 all_threads: bool = False):
        level = level or os.environ.get("WARPSIM_PROFILE_LEVEL") or "sass"
        if level not in LEVELS:
            raise ValueError(f"profile level must be one of {', '.join(LEVELS)}, not {level!r}")
        self.level = level
        self.sass_request = None
        if metrics is not None:
            metrics = [m.strip() for m in (metrics.split(",") if isinstance(metrics, str) else metrics)
                       if m.strip()]
            unknown = unknown_metrics(metrics)
            if unknown:
                raise ValueError(f"unknown metric(s): {', '.join(unknown)} (warpsim.metrics.names "
                                 "lists the known ones)")
        self.metrics = metrics
        self.selection = selection or LaunchSelection()
        self.all_threads = all_threads      # also launches from the process's other threads
        self.launches: list = []
        self.timeline: list = []            # a whole program's kernels and copies on the GPU clock
        self._token = None

    def __enter__(self) -> "Profiler":
        if self.level == "sass":
            self.sass_request = ReplayRequest(_sass_counters, alone=_ptx_level_profiles, wants=self.takes,
                                              all_threads=self.all_threads).__enter__()
        self._token = PROFILERS.push(self, self.all_threads)
        return self

    def __exit__(self, *exc) -> None:
        PROFILERS.pop(self._token)
        self._token = None
        if self.sass_request is not None:
            self.sass_request.__exit__(*exc)
            self.sass_request = None

    def takes(self, launch) -> bool:
        """Whether this profiler profiles `launch` (its LaunchSelection)."""
        return self.selection.everything or self.selection.takes(launch)

    def add_launch(self, launch: LaunchProfile) -> None:
        """Called by the launch's counters when it ends."""
        from copy import copy
        mine = copy(launch)                 # per-profiler id and selection, shared numbers
        mine.id = len(self.launches)
        mine.selected = self.metrics
        self.launches.append(mine)

    def __len__(self) -> int:
        return len(self.launches)

    def __iter__(self):
        return iter(self.launches)

    def __getitem__(self, i) -> LaunchProfile:
        return self.launches[i]

    def to_csv(self, metrics=None) -> str:
        out = io.StringIO()
        writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        for launch in self.launches:
            writer.writerows(launch.csv_rows(metrics))
        return out.getvalue()

    def __rich_console__(self, console, options):
        if not self.launches:
            yield "no kernel launches were profiled"
        for launch in self.launches:
            yield launch

    def render(self, width: int = PIPE_WIDTH, color: bool = False, source: bool = False) -> str:
        return "".join(launch.render(width, color, source) for launch in self.launches) or \
            "no kernel launches were profiled\n"

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"<warpsim Profiler: {len(self.launches)} launches>"

    def _repr_html_(self) -> str:
        from .report.html import render_profile_html
        return render_profile_html(self)

    def write_html(self, path: str) -> str:
        """Write the self-contained HTML report of these launches (warpsim.report.html)."""
        try:
            from .report.html import write_html_report
        except ImportError:
            raise NotImplementedError("the HTML report (warpsim.report.html) is not available "
                                      "in this version") from None
        return write_html_report(self, path)


def _ptx_level_profiles() -> str:
    """Why the PTX run must stay beside the SASS run for the profilers on now ('' when it need not)."""
    if any(profiler.level != "sass" for profiler in PROFILERS.active()):
        return "a profile at level 'ptx' is also on, and it counts the PTX run"
    return ""


def _sass_counters(launch) -> list:
    return [SassLaunchCounters(launch.loaded_module, launch.kernel, launch.grid, launch.block,
                               launch.dynamic_shared)]


def profile(metrics=None, level: str | None = None, *, kernel_name: str | None = None,
            kernel: str | None = None, launch_skip: int = 0, launch_count: int | None = None,
            all_threads: bool = False) -> Profiler:
    """`with warpsim.profile() as prof:` collects every launch inside the block (see module doc).

    level='sass' (the default, or $WARPSIM_PROFILE_LEVEL): SASS-level counts where the SASS
    executor covers the launch (PTX ones, with a note, where it does not); level='ptx':
    PTX-level counts.
    kernel_name, launch_skip, launch_count: Nsight Compute's -k/--kernel-name ('name' or
    'regex:EXPR'), -s and -c; kernel: any kernel whose name contains the text. Launches they
    leave out run unprofiled (LaunchSelection).
    all_threads=True: the launches of every thread of the process while it is open (as `warpsim
    profile` and Nsight Compute do), not only this thread's and task's.
    """
    return Profiler(metrics, level, LaunchSelection(kernel_name, kernel, launch_skip, launch_count), all_threads)
