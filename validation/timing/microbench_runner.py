"""What the microbenchmark runners (run_microbench5/6/7.py ...) share: on the device, a launch timed
by CUDA events after one untimed warm-up launch, and the command line that writes their JSON; here,
the rows of an ncu recording they left (h200/<batch>_ncu.csv).

    python3 run_microbenchN.py --collect OUTDIR    # times every configuration, writes OUTDIR/<name>.json
    python3 run_microbenchN.py --once              # launches each configuration once (for ncu), writes nothing
    python3 run_microbenchN.py --predict FILE      # here: the model's figures, written before measuring
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def card() -> str:
    """The GPU whose recordings the runners read, and whose preset their models predict for:
    h200, or MICROBENCH_CARD (h100: the batches recorded on an H100 SXM)."""
    return os.environ.get("MICROBENCH_CARD", "h200")


def recording(name: str) -> str:
    """The path of a batch's recording h200/<name>; with MICROBENCH_CARD=h100, h100/<name> (batches
    recorded on an H100 SXM when no H200 was lent)."""
    return os.path.join(HERE, card(), name)


def ncu_rows(name: str) -> list:
    """The kernel rows of a recording (`ncu --csv --page raw`, ncu's own lines before its table), in
    launch order: metric name -> value as ncu printed it (number() reads one)."""
    with open(recording(name)) as fh:
        text = fh.read()
    return [r for r in csv.DictReader(io.StringIO(text[text.index('"ID"'):])) if r["ID"].isdigit()]


def number(value: str) -> float:
    """An ncu value ("1,234.5") as a float."""
    return float(value.replace(",", ""))


def event_seconds(cp, launch, reps: int, before=None) -> list:
    """launch() once untimed, then `reps` times between two CUDA events (before(), an L2 flush say,
    ahead of each): the seconds of each timed launch."""
    launch()
    cp.cuda.runtime.deviceSynchronize()
    times = []
    for _ in range(reps):
        if before is not None:
            before()
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        launch()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
    return times


def median_launch(cp, launch, reps: int, read, key: str) -> dict:
    """launch() reps + 1 times, each between two CUDA events and followed by read(its event seconds),
    a dict of what that launch recorded; of all but the first (a warm-up), the one whose `key` is the
    median."""
    runs = []
    for _ in range(reps + 1):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        launch()
        b.record()
        b.synchronize()
        runs.append(read(cp.cuda.get_elapsed_time(a, b) * 1e-3))
    runs = sorted(runs[1:], key=lambda r: r[key])
    return runs[len(runs) // 2]


def time_configs(cp, configs, launch_for, reps: int) -> list:
    """Each configuration's launch (launch_for(config) makes it): with reps 0 launched once (a runner's
    --once, under ncu), else timed by CUDA events; the configurations with their median `event_us`."""
    import numpy as np
    results = []
    for config in configs:
        launch = launch_for(config)
        if reps == 0:
            launch_once(cp, launch, config)
            continue
        results.append(dict(config, event_us=float(np.median(event_seconds(cp, launch, reps))) * 1e6))
        print(results[-1], flush=True)
    return results


def launch_once(cp, launch, config) -> None:
    """One untimed launch of a configuration, waited for and named (a runner's --once, under ncu)."""
    launch()
    cp.cuda.runtime.deviceSynchronize()
    print(config, flush=True)


def main(doc: str, run, name: str, model=None, predict=None) -> None:
    """The runners' command line: run() (its own count of timed launches) returns the results to write;
    run(reps=0) launches each configuration once; model(), where a runner has one, prints the timing
    model beside the stored recording (`--model`, here, not on the device); predict(path) writes the
    model's figures before the batch is measured (`--predict FILE`)."""
    if len(sys.argv) == 3 and sys.argv[1] == "--collect":
        os.makedirs(sys.argv[2], exist_ok=True)
        results = run()
        with open(os.path.join(sys.argv[2], name), "w") as fh:
            json.dump(results, fh, indent=1)
    elif len(sys.argv) == 2 and sys.argv[1] == "--once":
        run(reps=0)
    elif model is not None and sys.argv[1:] == ["--model"]:
        model()
    elif predict is not None and len(sys.argv) == 3 and sys.argv[1] == "--predict":
        predict(sys.argv[2])
    else:
        print(doc)


def predicted(launch_of, config, gpus, max_ctas: int = 8) -> list:
    """The model's Timing of a configuration on each of `gpus`' presets, from `max_ctas` sampled CTAs:
    launch_of(config) gives (a warpsim kernel, grid, block, dynamic shared bytes, its arguments), the
    arrays among them alive while the model runs."""
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    f, grid, block, shared, args = launch_of(config)
    params = pack_arguments(f.kernel_name, f.params, args)
    return [predict(f.loaded_module, f.kernel_name, grid, block, params, shared, gpu=gpu, max_ctas=max_ctas)
            for gpu in gpus]


def model_table(name: str, kernel_prefix: str, configs, label, launch_of) -> None:
    """The model's time for each configuration beside the card's recording of it (ncu's
    gpu__time_duration and the CUDA-event median), and the mean absolute error (launch_of: predicted's)."""
    import numpy as np

    with open(recording(name + ".json")) as fh:
        events = json.load(fh)
    rows = [r for r in ncu_rows(name + "_ncu.csv") if kernel_prefix in r.get("Kernel Name", "")]
    width = max(len(label(config)) for config in configs)
    errors = []
    for config, e, m in zip(configs, events, rows):
        t, = predicted(launch_of, config, (card(),))
        measured, us = number(m["gpu__time_duration.sum"]) / 1e3, t.time_s * 1e6
        errors.append(us / measured - 1)
        print(f"{label(config):{width}s} {card().upper()} {measured:8.1f} us (events {e['event_us']:8.1f}), "
              f"model {us:8.1f} us ({100 * errors[-1]:+4.0f}%, {t.bottleneck})", flush=True)
    print(f"mean absolute error {100 * np.mean(np.abs(errors)):.1f}% over {len(errors)}")


def pass_cycles_table(name: str, configs, label, passes) -> None:
    """Each row's L2 cycles (lts__cycles_elapsed's rate) a (warp request, line) pass of atomics, over its
    ncu duration less the time a launch takes beyond its work (model.KERNEL_OVERHEAD_US), and ncu's RED
    requests a pass: an atomic batch's `--passes` (passes(config): the launch's passes)."""
    from warpsim.timing.model import KERNEL_OVERHEAD_US
    rows = [r for r in ncu_rows(name + "_ncu.csv") if name.replace("microbench", "mb") in r["Kernel Name"]]
    width = max(len(label(config)) for config in configs)
    for config, r in zip(configs, rows):
        us = number(r["gpu__time_duration.sum"]) / 1e3
        clock = number(r["lts__cycles_elapsed.avg.per_second"])
        n = passes(config)
        print(f"{label(config):{width}s} {us:8.1f} us, {(us - KERNEL_OVERHEAD_US) * 1e-6 * clock / n:5.2f} L2 cycles "
              f"a pass ({n} passes, {number(r['lts__t_requests_op_red.sum']) / n:.2f} RED requests a pass)")


def predict_table(path: str, configs, label, launch_of, cards=("h200", "h100")) -> None:
    """Each configuration's predicted time, bottleneck, top stall, achieved occupancy and issue activity
    on each card's preset, written to `path` as JSON and printed: the figures a batch is checked
    against, committed before it runs on the device."""
    rows = []
    for config in configs:
        row = dict(config)
        for gpu, t in zip(cards, predicted(launch_of, config, cards)):
            row.update({f"{gpu}_us": round(t.time_s * 1e6, 2), f"{gpu}_bottleneck": t.bottleneck,
                        f"{gpu}_top_stall": t.top_stall, f"{gpu}_occupancy": round(t.achieved_occupancy, 1),
                        f"{gpu}_issue_active": round(t.issue_active, 1)})
        rows.append(row)
        print(label(config), {k: v for k, v in row.items() if k.startswith(cards[0])}, flush=True)
    with open(path, "w") as fh:
        json.dump(rows, fh, indent=1)


def rounds_table(name: str, configs, label, shape, buffers_and_arguments, kernel_name, rounds: int,
                 stall: str = "branch_resolving", max_ctas: int = 2) -> None:
    """A batch's `--rounds` (each CTA running `rounds` rounds alike on an SM of its own): per row, the SM
    cycles a round (ncu's duration at its SM clock over the rounds), a CTA's warp instructions a round
    and its warps' cycles of `stall` a round (ncu's ratio times the instructions), each beside the
    model's (from `max_ctas` sampled CTAs)."""
    import warpsim as ws
    from warpsim.api.raw import pack_arguments
    from warpsim.timing import predict
    module = ws.RawModule(path=os.path.join(HERE, name + ".cubin"))
    rows = [r for r in ncu_rows(name + "_ncu.csv") if name.replace("microbench", "mb") in r["Kernel Name"]]
    metric = f"smsp__average_warps_issue_stalled_{stall}_per_issue_active.ratio"
    width = max(len(label(config)) for config in configs)
    for config, r in zip(configs, rows):
        grid, block, _ = shape(config)
        sms = grid[0]
        us = number(r["gpu__time_duration.sum"]) / 1e3
        per_round = us * 1e-6 * number(r["sm__cycles_elapsed.avg.per_second"]) / rounds
        issued = number(r["smsp__inst_executed.sum"]) / sms / rounds
        f = module.get_function(kernel_name(config))
        args = buffers_and_arguments(ws, config)
        t = predict(f.loaded_module, f.kernel_name, grid, block, pack_arguments(f.kernel_name, f.params, args), 0,
                    gpu=card(), max_ctas=max_ctas)
        model_issued = t.details["instructions"] / sms / rounds
        print(f"{label(config):{width}s} {per_round:6.1f} cycles a round (model {t.cycles / rounds:6.1f}), "
              f"{issued:5.1f} issues ({model_issued:5.1f}), {stall} {number(r[metric]) * issued:5.1f} "
              f"({t.stalls.get(stall, 0) * model_issued:5.1f})")


def cubin_launch_of(name: str, shape, buffers_and_arguments, kernel_name):
    """predicted()'s launch_of for a batch whose kernels are <name>.cubin: each configuration as
    kernel_name(config) on warpsim, shape(config)'s grid, block and shared bytes, and
    buffers_and_arguments(warpsim, config)."""
    @functools.cache
    def warpsim_module():
        import warpsim as ws
        return ws.RawModule(path=os.path.join(HERE, name + ".cubin"))

    def launch_of(config):
        import warpsim as ws
        return warpsim_module().get_function(kernel_name(config)), *shape(config), buffers_and_arguments(ws, config)
    return launch_of


def main_for_cubin(doc: str, name: str, configs, label, shape, buffers_and_arguments, kernel_name,
                   on_device=None, readers=None) -> None:
    """main() for a batch whose kernels are one cubin, <name>.cubin beside the runners: each
    configuration launched as kernel_name(config) on shape(config)'s grid and block with
    buffers_and_arguments(xp, config), on CuPy (the device: --collect, --once) or warpsim (--model).
    on_device(cp), where given, runs first on the device (a runner reading its SM count); readers,
    {flag: function}, the runner's own readings of its recording (`--passes`, say), each run alone."""
    if readers and len(sys.argv) == 2 and sys.argv[1] in readers:
        readers[sys.argv[1]]()
        return
    path = os.path.join(HERE, name + ".cubin")

    def run(reps=5):
        import cupy as cp
        if on_device is not None:
            on_device(cp)
        module = cp.RawModule(path=path)

        def launch_for(config):
            f = module.get_function(kernel_name(config))
            grid, block, _ = shape(config)
            args = buffers_and_arguments(cp, config)
            return lambda: f(grid, block, args)
        return time_configs(cp, configs, launch_for, reps)

    launch_of = cubin_launch_of(name, shape, buffers_and_arguments, kernel_name)
    main(doc, run, name + ".json",
         lambda: model_table(name, name.replace("microbench", "mb"), configs, label, launch_of),
         lambda out: predict_table(out, configs, label, launch_of))
