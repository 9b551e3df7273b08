"""Ground truth from a real GPU for SASS-level counters.

On the H200 (run_on_device.sh calls this with --collect):

    python3 validation/sass_counters/run_on_device.py --collect OUTDIR

  1. saves the environment and `ncu --query-metrics` (base names, and the
     suffixes of the metrics used here);
  2. runs every case of cases.py once without ncu, checking each output
     against its NumPy reference (PASS/FAIL lines in device_log.txt);
  3. runs them all again under one
     `ncu --clock-control none --csv --page raw --metrics <list>` (metrics the
     installed ncu does not know are dropped first) -> ncu_raw.csv;
  4. records the SourceCounters section for a few kernels and for all, and
     prints its per-instruction SASS page (`--page source --csv --print-source sass`);
  5. packs everything into OUTDIR/sass_counters_results.tar.gz.

The kernels come from kernels.cubin (built here by build_cubin.py with ptxas
13.0 from warpsim's NVRTC PTX), loaded with CuPy RawModule(path=...), so the
SASS the GPU runs is the one `warpsim sass kernels.cubin` lists.

With SC_FROM_SOURCE=1 in the environment (`SC_FROM_SOURCE=1 OUT=$OUT bash
run_on_device.sh`), CuPy compiles kernels.cu itself instead, with
RawModule(code=kernels.cu, options=("-arch=sm_90",)): its NVRTC (13.0 on the
H200) and its JIT make the code, as for any CuPy program. warpsim models that
with `warpsim.settings(cuda="13.0")` (docs/sass.md); the run then also keeps
NVRTC's version and the SASS of the cubins CuPy cached (sass_from_source.txt).

    python3 run_on_device.py --launch [--backend cupy|warpsim] [--only REGEX]

makes the launches only (what ncu profiles); with --backend warpsim the same
table runs on warpsim from kernels.cu, to check cases and references here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FROM_SOURCE = os.environ.get("SC_FROM_SOURCE") == "1"     # CuPy compiles kernels.cu (see above)
sys.path.insert(0, HERE)

from cases import CASES, check  # noqa: E402

METRICS = [
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_pred_on.sum",
    "smsp__sass_inst_executed.sum",
    "smsp__sass_thread_inst_executed.sum",
    "smsp__sass_thread_inst_executed_pred_on.sum",
    "smsp__sass_branch_targets.sum",
    "smsp__sass_branch_targets_threads_divergent.sum",
    "smsp__sass_branch_targets_threads_uniform.sum",
    "smsp__inst_executed_op_branch.sum",
    "smsp__sass_inst_executed_op_branch.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "smsp__inst_executed_op_global_atom.sum",
    "smsp__inst_executed_op_global_red.sum",
    "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_global_st.sum",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__sass_inst_executed_op_global_red.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__warps_launched.sum",
    "smsp__threads_launched.sum",
    "sm__ctas_launched.sum",
    "launch__registers_per_thread",
    "launch__grid_size",
    "launch__block_size",
    "launch__shared_mem_per_block_static",
]

# The core metrics (the fallback if ncu refuses the full list).
CORE = set(METRICS[:9] + METRICS[11:13] + METRICS[15:24] + METRICS[23:35]) - {
    "smsp__sass_thread_inst_executed_pred_on.sum"} | {"launch__grid_size", "launch__block_size"}

# Kernels whose per-instruction SASS counts are recorded first (SourceCounters).
SOURCE_FEW = "regex:^sc_(long_ifelse|switch|variable_loop)$"


# ---------------------------------------------------------------- launches

def launch_all(backend: str, only: str | None, log=print) -> list:
    """Every case in order; returns [(label, ok, message)]."""
    import numpy as np
    if backend == "cupy" and not FROM_SOURCE:
        import cupy as xp
        module = xp.RawModule(path=os.path.join(HERE, "kernels.cubin"))
    elif backend == "cupy":
        import cupy as xp
        with open(os.path.join(HERE, "kernels.cu")) as handle:
            module = xp.RawModule(code=handle.read(), options=("-arch=sm_90",))
    else:
        import warpsim as xp
        with open(os.path.join(HERE, "kernels.cu")) as handle:
            module = xp.RawModule(code=handle.read(), options=("-arch=sm_90",))
    results = []
    pattern = re.compile(only) if only else None
    for case in CASES:
        if pattern and not pattern.search(case.label):
            continue
        args, expected, rtol, atol = case.make()
        device_args = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        try:
            module.get_function(case.kernel)(case.grid, case.block, tuple(device_args))
            if backend == "cupy":
                xp.cuda.runtime.deviceSynchronize()
            outputs = {i: xp.asnumpy(device_args[i]) for i in expected}
            ok, message = check(case, outputs, expected, rtol, atol)
        except Exception as exc:  # a launch error must not stop the other cases
            ok, message = False, f"{type(exc).__name__}: {exc}"
        results.append((case.label, ok, message))
        log(f"{'PASS' if ok else 'FAIL'} {case.label:28s} {case.kernel:24s} grid={case.grid} block={case.block} {message}")
    return results


# ---------------------------------------------------------------- the device run

def sh(command: str, out: str, log, timeout: int = 300) -> int:
    """Run a shell command, stdout+stderr to file `out`; log the command and its time."""
    start = time.time()
    with open(out, "w") as handle:
        try:
            code = subprocess.run(command, shell=True, stdout=handle, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            code = 124
    log(f"[{time.time() - start:6.1f}s rc={code}] {command}")
    return code


def collect(outdir: str) -> int:
    work = os.path.join(outdir, "sass_counters")
    os.makedirs(work, exist_ok=True)
    log_path = os.path.join(work, "device_log.txt")
    log_file = open(log_path, "w")

    def log(line):
        print(line, flush=True)
        log_file.write(line + "\n"); log_file.flush()

    me = os.path.abspath(__file__)
    py = sys.executable
    if FROM_SOURCE:      # CuPy's kernel cache in the results, so its cubins can be listed
        os.environ["CUPY_CACHE_DIR"] = os.path.join(work, "cupy_cache")
        log("SC_FROM_SOURCE=1: CuPy compiles kernels.cu (RawModule(code=..., options=('-arch=sm_90',)))")
        sh("python3 -c 'import cupy; print(\"nvrtc\", cupy.cuda.nvrtc.getVersion())'",
           os.path.join(work, "nvrtc_version.txt"), log)
    sh("nvidia-smi; ncu --version; python3 -c 'import cupy; print(\"cupy\", cupy.__version__)'; "
       "cuobjdump --version | tail -2", os.path.join(work, "environment.txt"), log)
    sh(f"sha256sum {HERE}/kernels.cubin", os.path.join(work, "cubin_sha256.txt"), log)
    sh("ncu --query-metrics", os.path.join(work, "query_metrics.txt"), log)
    known = set()
    for line in open(os.path.join(work, "query_metrics.txt")):
        parts = line.split()
        if parts and re.match(r"^[a-z0-9_]+__[a-z0-9_]+$", parts[0]):
            known.add(parts[0])
    bases = sorted({m.rsplit(".", 1)[0] if m.rsplit(".", 1)[-1] in ("sum", "avg", "max", "ratio", "pct") else m
                    for m in METRICS})
    sh(f"ncu --query-metrics --query-metrics-mode suffix --metrics {','.join(bases)}",
       os.path.join(work, "query_metrics_suffixes.txt"), log)
    wanted = [m for m in METRICS if m.startswith("launch__") or m.rsplit(".", 1)[0] in known or m in known] \
        if known else list(METRICS)
    dropped = [m for m in METRICS if m not in wanted]
    log(f"metrics known to this ncu: {len(wanted)} of {len(METRICS)}; dropped: {', '.join(dropped) or 'none'}")

    log("---- correctness, no profiler")
    results = launch_all(os.environ.get("SC_BACKEND", "cupy"), None, log)
    failed = [label for label, ok, _ in results if not ok]
    log(f"---- {len(results) - len(failed)} of {len(results)} cases PASS; FAIL: {', '.join(failed) or 'none'}")
    if FROM_SOURCE:
        list_cached_cubins(os.path.join(work, "cupy_cache"), os.path.join(work, "sass_from_source.txt"), log)

    rows = []
    for attempt, metrics in enumerate((wanted, [m for m in wanted if m in CORE])):
        raw = os.path.join(work, f"ncu_raw_log{'' if attempt == 0 else '_retry'}.txt")
        sh(f"ncu --clock-control none --kernel-name regex:^sc_ --csv --page raw --metrics {','.join(metrics)} "
           f"--log-file {raw} {py} {me} --launch", os.path.join(work, f"ncu_raw_stdout{'' if attempt == 0 else '_retry'}.txt"),
           log, 200 if attempt == 0 else 120)
        if os.path.exists(raw):
            with open(raw) as src:
                rows = [line for line in src if line.startswith('"')]
        log(f"ncu raw page: {len(rows)} rows (header + units + one per kernel launch)")
        if len(rows) > 2:
            with open(os.path.join(work, "ncu_raw.csv"), "w") as dst:
                dst.writelines(rows)
            break
        log("ncu refused the metric list or profiled nothing: retrying with the core list")
    # per-instruction SASS counts: a few kernels, then every kernel
    for tag, kernels, limit in (("few", SOURCE_FEW, 90), ("all", "regex:^sc_", 150)):
        rep = os.path.join(work, f"source_{tag}")
        code = sh(f"ncu --clock-control none --kernel-name '{kernels}' --section SourceCounters "
                  f"-f -o {rep} {py} {me} --launch",
                  os.path.join(work, f"source_{tag}_profile_log.txt"), log, limit)
        if os.path.exists(rep + ".ncu-rep"):
            sh(f"ncu -i {rep}.ncu-rep --page source --csv --print-source sass",
               os.path.join(work, f"source_sass_{tag}.csv"), log, 60)
            if tag == "few":
                sh(f"ncu -i {rep}.ncu-rep --page details --csv", os.path.join(work, f"source_{tag}_details.csv"), log, 60)
        if tag == "all" and code != 0:
            log("SourceCounters over all kernels did not finish: the 'few' report stands")
    log_file.close()
    pack(outdir, work, log_path)
    return 0


def list_cached_cubins(cache: str, out: str, log) -> None:
    """cuobjdump -sass of every cubin in CuPy's kernel cache (each file holds a hash, then the ELF)."""
    listed = []
    for root, _, files in os.walk(cache):
        for name in sorted(files):
            with open(os.path.join(root, name), "rb") as handle:
                data = handle.read()
            start = data.find(b"\x7fELF")
            if start < 0:
                continue
            cubin = os.path.join(cache, f"cached_{len(listed)}.cubin_elf")
            with open(cubin, "wb") as handle:
                handle.write(data[start:])
            listed.append(cubin)
    sh(" ; ".join(f"cuobjdump -sass {c}" for c in listed) or "true", out, log)
    log(f"CuPy's cache: {len(listed)} cubins listed")


def pack(outdir: str, work: str, log_path: str) -> None:
    """One archive (at most 15 MB, so it comes back; the .ncu-rep reports go first if it is larger)."""
    archive = os.path.join(outdir, "sass_counters_results.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(work, arcname="sass_counters")
    shutil.copy(log_path, os.path.join(outdir, "device_log.txt"))
    if os.path.getsize(archive) > 15_000_000:
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(work, arcname="sass_counters", filter=lambda m: None if m.name.endswith(".ncu-rep") else m)
    print(f"wrote {archive} ({os.path.getsize(archive)} bytes)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collect", metavar="OUTDIR", help="the whole device run (see above)")
    parser.add_argument("--launch", action="store_true", help="make the launches and check them")
    parser.add_argument("--backend", default=os.environ.get("SC_BACKEND", "cupy"), choices=("cupy", "warpsim"))
    parser.add_argument("--only", help="regex on case labels")
    parser.add_argument("--metrics", action="store_true", help="print the metric list")
    args = parser.parse_args(argv)
    if args.metrics:
        print(",".join(METRICS))
        return 0
    if args.collect:
        return collect(args.collect)
    results = launch_all(args.backend, args.only, lambda line: print(line, file=sys.stderr, flush=True))
    failed = sum(1 for _, ok, _ in results if not ok)
    print(f"{len(results) - failed} of {len(results)} PASS", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
