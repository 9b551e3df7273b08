"""The small entry points: predict a launch from a loaded module and its packed parameters."""

from __future__ import annotations

from .registers import cubin_registers, kernel_registers  # noqa: F401
from .sample import predict_sampled, record_execution


def predict(loaded_module, kernel: str, grid, block, params: bytes, shared_mem: int = 0,
            gpu="h200", registers: int | None = None, max_ctas: int = 6, prefer: str = "sass",
            warm_l2: bool = False):
    """Timing of one launch on `gpu`, from a sample of its CTAs run here (SASS executor, else PTX).

    loaded_module: a warpsim LoadedModule (RawKernel.loaded_module); kernel: its (lowered) name;
    params: the packed parameter bytes. Running the sample writes device memory as those CTAs would.
    prefer='ptx' takes the counts from the PTX machine (mapped to the SASS by PTX line) even where the
    SASS executor could run the kernel, as the profiler does. warm_l2: the launch follows itself, so
    its data is in L2 as far as the L2 holds it (predict_execution); by default the L2 starts cold.
    """
    ex = record_execution(loaded_module, kernel, grid, block, params, shared_mem, max_ctas=max_ctas, prefer=prefer)
    return predict_sampled(ex, loaded_module, kernel, shared_mem, gpu, registers, 0.0 if warm_l2 else None)


predict_launch = predict
