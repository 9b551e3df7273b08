"""What the timing model costs next to the functional run (issue 11: at most about the same).

    python bench/timing_cost.py              # a few validation kernels, about a minute
    python bench/timing_cost.py --only axpy  # one family

For each launch, the best of `--repeat` runs, all in this one process:

- `run`: the functional run alone (the kernel launched on warpsim, nothing recorded);
- `profile`: the same launch under `warpsim.profile()` with no GPU chosen;
- `profile+gpu`: under `warpsim.settings(gpu="h200")` and `warpsim.profile()`, which records
  the sampled CTAs during the run and predicts `.timing` from them (the path a user takes);
- `predict`: `warpsim.timing.predict()` alone, which runs the sample itself (SASS executor)
  and then the model, without the functional run of the whole grid.

The timing model's own cost is `profile+gpu - profile` (what choosing a GPU adds to a profiled
run); the ratio printed is that over `run`, and `predict / run`. The kernels are validation/timing's
cases at a reduced scale (the grid shrunk so the functional run takes seconds, not minutes).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATION = os.path.join(HERE, "..", "validation", "timing")
sys.path.insert(0, VALIDATION)
sys.path.insert(0, os.path.join(HERE, ".."))

import warpsim as ws  # noqa: E402
from warpsim.api.raw import pack_arguments  # noqa: E402
from warpsim.timing import predict  # noqa: E402

from cases import build_cases  # noqa: E402
from timer import best_of  # noqa: E402
from run_on_device import prepare, warpsim_module  # noqa: E402

DEFAULT = r"^(branch_on_lane|switch_4way|var_loop_unsorted|latency_hiding_16warps|occupancy_regs_64|fp32_bound|" \
          r"sfu_exp_bound|bank_stride_4|transpose_smem_2048|atomic_32_addresses|axpy_block_256|strided_copy_4|" \
          r"matmul_tiled_512|barrier_loop_block_256|reduce_block)$"



def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=DEFAULT, help="regex over case labels")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sms", type=int, default=8, help="shrink grids as for a GPU of this many SMs")
    args = parser.parse_args(argv)
    mod = warpsim_module()
    rows = []
    for case in build_cases(sms=args.sms, scale=args.sms / 132):
        if not re.search(args.only, case.label):
            continue
        kernel = prepare(mod, case)
        run = case.make(ws)
        params = pack_arguments(kernel.kernel_name, kernel.params, run.args)

        def launch():
            kernel(case.grid, case.block, run.args, shared_mem=case.shared_mem)

        def profiled(gpu=""):
            with ws.settings(gpu=gpu), ws.profile() as prof:
                launch()
            return prof

        def predicted():
            return predict(kernel.loaded_module, kernel.kernel_name, case.grid, case.block, params, case.shared_mem,
                           gpu="h200")

        launch()                      # compile the blocks, the SASS and the register count once
        got = profiled("h200").launches[-1].timing
        predicted()
        t_run = best_of(launch, args.repeat)
        t_prof = best_of(profiled, args.repeat)
        t_gpu = best_of(lambda: profiled("h200"), args.repeat)
        t_pred = best_of(predicted, args.repeat)
        rows.append((case.label, case.grid, case.block, t_run, t_prof, t_gpu, t_pred, got))
        del run
    print(f"{'case':<24} {'grid x block':>18} {'run s':>7} {'profile':>8} {'+gpu':>7} {'predict':>8} "
          f"{'model/run':>9} {'predict/run':>11}")
    tot = [0.0, 0.0, 0.0, 0.0]
    worst = 0.0
    for label, grid, block, t_run, t_prof, t_gpu, t_pred, got in rows:
        model = max(0.0, t_gpu - t_prof)
        worst = max(worst, model / t_run)
        for k, v in enumerate((t_run, t_prof, t_gpu, t_pred)):
            tot[k] += v
        geo = f"{'x'.join(map(str, grid))} x {'x'.join(map(str, block))}"
        print(f"{label:<24} {geo:>18} {t_run:7.3f} {t_prof:8.3f} {t_gpu:7.3f} {t_pred:8.3f} "
              f"{model / t_run:9.2f} {t_pred / t_run:11.2f}" + ("" if got is not None else "  (no timing)"))
    t_run, t_prof, t_gpu, t_pred = tot
    print(f"{'all':<24} {'':>18} {t_run:7.3f} {t_prof:8.3f} {t_gpu:7.3f} {t_pred:8.3f} "
          f"{max(0.0, t_gpu - t_prof) / t_run:9.2f} {t_pred / t_run:11.2f}")
    print(f"timing model cost / functional run: {max(0.0, t_gpu - t_prof) / t_run:.2f} overall (profile with a GPU "
          f"chosen minus without), {worst:.2f} worst launch; predict() alone / functional run: {t_pred / t_run:.2f} "
          f"(issue 11 asks for at most about 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
