"""The warpsim backend's compiler: Triton's NVIDIA passes for the chosen GPU's arch, up to PTX.

Every stage is the NVIDIA backend's own (make_ttir, make_ttgir, make_llir,
make_ptx) for the target's compute capability, so the PTX is the one Triton
would hand ptxas on that GPU; the cubin stage is dropped, because warpsim runs
the PTX (and compiles its own SASS with ptxas when it predicts time). The
target's backend name is "warpsim", so Triton's make_backend never confuses it
with the NVIDIA backend, which stays the one for "cuda" targets.
"""

from __future__ import annotations

from ...errors import import_optional
from . import BACKEND_NAME

nvidia = import_optional("triton.backends.nvidia.compiler", extra="triton",
                         needed_for="warpsim's Triton backend")


class WarpsimBackend(nvidia.CUDABackend):
    """CUDABackend's passes for target.arch, ending at PTX (the kernel binary warpsim loads)."""

    @staticmethod
    def supports_target(target) -> bool:
        return target.backend == BACKEND_NAME

    def __init__(self, target) -> None:
        super().__init__(target)
        self.binary_ext = "ptx"

    def add_stages(self, stages, options, language):
        super().add_stages(stages, options, language)
        stages.pop("cubin", None)

    def hash(self) -> str:
        """Keyed without ptxas's version (CUDABackend asks ptxas): the PTX does not depend on it."""
        return f"warpsim-ptx-{self.target.arch}"
