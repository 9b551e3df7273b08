"""do_bench on predicted time: what `triton.testing.do_bench` returns under warpsim.

A GPU's do_bench times `fn` with CUDA events around each call, after an L2
flush, for about `rep` ms, and summarizes the times (mean by default, or the
quantiles asked for). On warpsim the events read the predicted clock, and a
prediction does not vary from run to run, so one call after the warm-up call
gives every repetition's time: do_bench here calls fn twice (Triton's loop
would call it thousands of times for a 10 us kernel, each a full simulation
of the same result). The time includes the launch overhead the events see;
the L2 is flushed before the timed call, as do_bench flushes it before each
run. do_bench_cudagraph does not flush: its timed call's launches find in L2
what the first call left there, as a graph's replays do (device.py).

While the warpsim driver is active, `triton.testing.do_bench` is this
function and `do_bench_cudagraph` its graph form (install/uninstall; installed
as soon as triton.testing is imported, so `from triton.testing import do_bench`
at a script's top binds this one), so scripts and Triton's autotuner (through the
driver's get_benchmarker) read predictions. The first use says so on stderr.
"""

from __future__ import annotations

import statistics
import sys

from .import_hooks import call_after_import, stop_waiting

_SAID: list = []
_ORIGINAL: dict = {}


class L2Flush:
    """What get_empty_cache_for_benchmark returns: zero_() is do_bench's L2 flush: the launches
    after it start from a cold L2 (device.py)."""

    def zero_(self):
        from .device import active_gpu
        active_gpu().flush_l2()
        return self


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """triton.testing.do_bench's result on the predicted clock (milliseconds; see the module doc)."""
    return _bench(fn, "clock_ms", grad_to_none, quantiles, return_mode, flush=True)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """triton.testing.do_bench_cudagraph's result on the predicted clock: the kernels' predicted
    time without the per-launch overhead CUDA events see (a graph replays its launches back to
    back), with no L2 flush between replays."""
    return _bench(fn, "kernel_ms", grad_to_none, quantiles, return_mode, flush=False)


def _bench(fn, clock: str, grad_to_none, quantiles, return_mode, flush: bool):
    from .device import active_gpu
    assert return_mode in ["min", "max", "mean", "median", "all"]
    fn()                                   # do_bench's first call (compiles; not timed)
    gpu = active_gpu()                     # after it: a first launch makes Triton's driver, and its GPU
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None
    if flush:
        gpu.flush_l2()
    start, launches = getattr(gpu, clock), gpu.launches
    fn()
    elapsed = getattr(gpu, clock) - start
    _say_predicted(gpu)
    if gpu.launches == launches:
        elapsed = _nothing_launched(fn)
    if quantiles is not None:
        return [elapsed for _ in quantiles]
    times = [elapsed]
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.mean, "median": statistics.median}[return_mode](times)


def _nothing_launched(fn) -> float:
    """NaN: fn ran no kernel on warpsim (a torch operator, which runs on the CPU here), so there is
    no GPU time to predict; 0 would make a script's GB/s a division by zero, NaN shows as a gap."""
    name = getattr(fn, "__qualname__", repr(fn))
    if name not in _SAID:
        _SAID.append(name)
        print(f"warpsim: do_bench({name}) launched no Triton kernel (torch operators run on the CPU here): "
              f"no predicted time, NaN returned", file=sys.stderr)
    return float("nan")


def _say_predicted(gpu) -> None:
    if True not in _SAID:
        _SAID.append(True)
        print(f"warpsim: Triton's do_bench and autotune times are predicted for the {gpu.preset.full_name} "
              f"by warpsim's timing model, not measured", file=sys.stderr)


def perf_report_run(original):
    """Mark._run with the y label saying the figures are predicted (columns, plot axis and CSV)
    and a note on stderr naming the GPU and model, as the plot's times are predictions."""
    def _run(self, bench, *args, **kwargs):
        from .device import active_gpu
        label = bench.ylabel
        bench.ylabel = f"predicted {label}" if label else "predicted"
        print(f"warpsim: {bench.plot_name or 'perf_report'}: {label or 'figures'} from times predicted for the "
              f"{active_gpu().preset.full_name} by warpsim's timing model, not measured", file=sys.stderr)
        try:
            return original(self, bench, *args, **kwargs)
        finally:
            bench.ylabel = label
    _run.__doc__ = original.__doc__
    return _run


def install() -> None:
    """Make triton.testing.do_bench this do_bench, and perf_report's tables and plots say
    predicted (while the warpsim driver is active)."""
    testing = sys.modules.get("triton.testing")
    if testing is None:
        import triton.testing as testing
    if "do_bench" not in _ORIGINAL:
        _ORIGINAL["do_bench"] = testing.do_bench
        _ORIGINAL["do_bench_cudagraph"] = testing.do_bench_cudagraph
        _ORIGINAL["Mark._run"] = testing.Mark._run
        testing.Mark._run = perf_report_run(_ORIGINAL["Mark._run"])
    testing.do_bench = do_bench
    testing.do_bench_cudagraph = do_bench_cudagraph


def install_on_import() -> None:
    """install() now if triton.testing is imported, else as soon as it is (so a script's
    `from triton.testing import do_bench`, bound before Triton makes its driver, gets this one)."""
    call_after_import("triton.testing", install)


def uninstall() -> None:
    """Put Triton's do_bench back (and stop waiting for triton.testing's import)."""
    stop_waiting("triton.testing")
    testing = sys.modules.get("triton.testing")
    if testing is not None and "do_bench" in _ORIGINAL:
        testing.do_bench = _ORIGINAL.pop("do_bench")
        testing.do_bench_cudagraph = _ORIGINAL.pop("do_bench_cudagraph")
        testing.Mark._run = _ORIGINAL.pop("Mark._run")
