"""The warpsim backend's compiler: Triton's NVIDIA passes for the chosen GPU's arch, up to PTX.

Every stage is the NVIDIA backend's own (make_ttir, make_ttgir, make_llir,
make_ptx) for the target's compute capability, so the PTX is the one Triton
would hand ptxas on that GPU; the cubin stage is dropped, because warpsim runs
the PTX (and compiles its own SASS with ptxas when it predicts time).

The driver's target is a "cuda" GPUTarget, as an NVIDIA GPU's is: scripts
choose CUDA code paths by `target.backend == "cuda"`, and Triton's frontend
lowers tensor descriptors to TMA only for such targets at sm_90. Triton's
make_backend wants exactly one compiler for a target, and a compiled kernel's
metadata keeps only the target's fields, so which compiler takes "cuda" is
decided by whether the warpsim backend is enabled: this one while it is, the
NVIDIA one otherwise (`route_cuda_targets` makes the NVIDIA compiler step
aside while enabled; with the switch off it answers as before).
"""

from __future__ import annotations

from ...errors import import_optional
from . import TARGET_BACKEND, enabled

nvidia = import_optional("triton.backends.nvidia.compiler", extra="triton",
                         needed_for="warpsim's Triton backend")


BINARY_EXT = "warpsim_ptx"      # the stage (and cache file suffix) holding what load_binary loads


class WarpsimBackend(nvidia.CUDABackend):
    """CUDABackend's passes for target.arch, ending at PTX (the kernel binary warpsim loads)."""

    @staticmethod
    def supports_target(target) -> bool:
        return target.backend == TARGET_BACKEND and enabled()

    def __init__(self, target) -> None:
        super().__init__(target)
        self.binary_ext = BINARY_EXT

    def add_stages(self, stages, options, language):
        """The NVIDIA stages up to PTX, then the PTX's bytes as the binary: Triton reads the
        binary stage's file as bytes and the others as text, so `kernel.asm["ptx"]` stays the
        str it is on a GPU, and the driver loads the binary."""
        super().add_stages(stages, options, language)
        stages.pop("cubin", None)
        stages[BINARY_EXT] = lambda ptx, metadata: ptx.encode() if isinstance(ptx, str) else ptx

    def hash(self) -> str:
        """Keyed without ptxas's version (CUDABackend asks ptxas): the PTX does not depend on it.
        Keyed by the target's backend too: kernels cached for the former "warpsim" targets are not reused."""
        return f"{BINARY_EXT}-{self.target.backend}-{self.target.arch}"


def route_cuda_targets() -> None:
    """The NVIDIA compiler declines "cuda" targets while the warpsim backend is enabled (module doc)."""
    cuda = nvidia.CUDABackend
    if getattr(cuda.supports_target, "warpsim_routed", False):
        return
    nvidia_supports = cuda.supports_target

    def supports_target(target) -> bool:
        return nvidia_supports(target) and not enabled()
    supports_target.warpsim_routed = True
    cuda.supports_target = staticmethod(supports_target)


route_cuda_targets()
if enabled():              # Triton imports this module before triton.testing: bind do_bench to warpsim's
    from .bench import install_on_import
    install_on_import()
