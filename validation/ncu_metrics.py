"""Run the validation kernels on a real GPU with CuPy, under Nsight Compute.

    ncu --clock-control none --kernel-name regex:^ws_ --metrics "$(python3 validation/ncu_metrics.py --metrics)" \
        --csv python3 validation/ncu_metrics.py > validation/ncu_metrics.csv

(validation/run_on_device.sh does exactly this, keeping only the metrics the
installed ncu knows.) The launches are those of validation/cases.py, so
validation/compare_metrics.py can make the same ones on warpsim and compare.
`--backend warpsim` runs the same script on warpsim (to check it without a GPU).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cases import CASES, run_all  # noqa: E402

# The metrics of issue 4, then a few more that explain differences.
METRICS = [
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__thread_inst_executed_pred_on.sum",
    "smsp__sass_branch_targets.sum",
    "smsp__sass_branch_targets_threads_divergent.sum",
    "smsp__sass_branch_targets_threads_uniform.sum",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__registers_per_thread",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    # context for the differences
    "smsp__sass_inst_executed.sum",
    "smsp__sass_thread_inst_executed.sum",
    "smsp__sass_inst_executed_op_branch.sum",
    "smsp__inst_executed_op_branch.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "smsp__inst_executed_op_global_red.sum",
    "smsp__inst_executed_op_global_atom.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_global_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "smsp__warps_launched.sum",
    "sm__ctas_launched.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__shared_mem_config_size",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_driver",
    "launch__occupancy_per_register_count",
    "launch__block_size",
    "launch__grid_size",
    "launch__waves_per_multiprocessor",
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metrics", action="store_true",
                        help="print the comma-separated metric list and exit")
    parser.add_argument("--available", help="file listing the metrics ncu knows (one per line): "
                                            "--metrics keeps only those")
    parser.add_argument("--backend", default="cupy", choices=("cupy", "warpsim"))
    args = parser.parse_args(argv)
    if args.metrics:
        wanted = METRICS
        if args.available:
            with open(args.available) as handle:
                known = set(handle.read().split())
            wanted = [m for m in METRICS if m in known or m.rsplit(".", 1)[0] in known]
        print(",".join(wanted))
        return 0
    if args.backend == "cupy":
        import cupy as xp
    else:
        import warpsim as xp
    run_all(xp, on_launch=lambda case: print(f"launched {case.label}", file=sys.stderr))
    if args.backend == "cupy":
        xp.cuda.runtime.deviceSynchronize()
    print(f"{len(CASES)} launches", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
