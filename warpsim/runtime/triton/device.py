"""The GPU a Triton script sees under warpsim: the chosen preset and its predicted clock.

Every launch advances `clock_ms` by its predicted time plus the launch
overhead CUDA events see (the preset's launch_overhead_us: event time minus
kernel duration, measured on the H200), so events recorded around launches
read what they would read on that GPU, and do_bench and autotune read them.

The GPU keeps what its L2 holds as the launches since the last flush, each
with its data's footprint: a launch that ran before, with so few bytes of
other launches since that the L2 holds them and its own, finds its data in L2
(a CUDA graph's replays, a loop of launches timed by events); a first launch,
or one after do_bench's L2 flush, starts cold (timing/model.py, l2_since).
"""

from __future__ import annotations

import math
import os
import sys

from ...settings import current
from ...timing.presets import gpu_preset

DEFAULT_GPU = "h200"


def chosen_gpu() -> str:
    """warpsim.settings(gpu=...), else WARPSIM_GPU (`warpsim run --gpu`), else the H200."""
    return current().gpu or os.environ.get("WARPSIM_GPU") or DEFAULT_GPU


class PredictedGPU:
    """The simulated GPU of the Triton driver: a preset, its clock, and warpsim's device."""

    def __init__(self, gpu: str | None = None):
        from ...machine.device import default_device
        self.gpu = gpu or chosen_gpu()
        self.preset = gpu_preset(self.gpu)
        self.device = default_device()
        self.clock_ms = 0.0
        self.kernel_ms = 0.0              # the kernels' predicted time alone (what a CUDA graph's replay sees)
        self.launches = 0
        self.unpredicted: list = []       # kernels whose time could not be predicted (said once each)
        self.l2_launches: list = []       # (launch key, footprint bytes) since the last L2 flush, oldest first

    @property
    def arch(self) -> int:
        major, minor = self.preset.compute_capability
        return 10 * major + minor

    def advance(self, kernel_seconds: float) -> None:
        self.clock_ms += kernel_seconds * 1e3 + self.preset.launch_overhead_us * 1e-3
        self.kernel_ms += kernel_seconds * 1e3
        self.launches += 1

    def l2_since(self, key) -> float | None:
        """Bytes other launches touched since the launch `key` last ran (None: not since the L2 was
        flushed)."""
        for k in range(len(self.l2_launches) - 1, -1, -1):
            if self.l2_launches[k][0] == key:
                return float(sum(f for _, f in self.l2_launches[k + 1:]))
        return None

    def l2_ran(self, key, footprint: float) -> None:
        """The launch `key` ran, touching `footprint` bytes: it is the L2's most recent data, and
        launches the L2 no longer holds any of are forgotten."""
        self.l2_launches = [e for e in self.l2_launches if e[0] != key] + [(key, float(footprint))]
        while sum(f for _, f in self.l2_launches[1:]) > self.preset.l2_bytes:
            self.l2_launches.pop(0)

    def flush_l2(self) -> None:
        self.l2_launches = []

    def properties(self) -> dict:
        """What Triton's driver.utils.get_device_properties gives, for this preset."""
        p = self.preset
        return {"max_shared_mem": p.max_shared_per_block, "multiprocessor_count": p.sms,
                "sm_clock_rate": int(p.kernel_clock_mhz * 1000), "mem_clock_rate": 0,
                "mem_bus_width": 0, "max_num_regs": p.registers_per_sm, "warpSize": p.warp_size}


class Event:
    """torch.cuda.Event on the predicted clock: elapsed_time in predicted milliseconds. Where no
    Triton kernel ran between the two events (torch operators run on the CPU here) there is no GPU
    time to predict: NaN, said once on stderr. gpu: the clock to read (None: the active GPU's when
    recorded, as torch.cuda.Event under the backend)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 external: bool = False, gpu: PredictedGPU | None = None):
        self.gpu, self.enable_timing = gpu, enable_timing
        self.time_ms: float | None = None
        self.launches = 0

    def record(self, stream=None) -> None:
        gpu = self.gpu or active_gpu()
        self.time_ms, self.launches = gpu.clock_ms, gpu.launches

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: "Event") -> float:
        for name, event in (("start", self), ("end", end)):
            if event.time_ms is None:
                raise RuntimeError(f"torch.cuda.Event.elapsed_time: the {name} event was never recorded "
                                   "(call record() first)")
            if not event.enable_timing:
                raise RuntimeError(f"torch.cuda.Event.elapsed_time: the {name} event was created without "
                                   "enable_timing=True")
        if end.launches == self.launches:
            if not _SAID_NO_LAUNCH:
                _SAID_NO_LAUNCH.append(True)
                print("warpsim: torch.cuda.Event.elapsed_time: no Triton kernel ran between the events (torch "
                      "operators run on the CPU here): no predicted time, NaN returned", file=sys.stderr)
            return math.nan
        return end.time_ms - self.time_ms


class DeviceInterface:
    """What Triton asks of `driver.get_device_interface()` (torch.cuda on a GPU), on the predicted GPU."""

    def __init__(self, gpu: PredictedGPU):
        self.gpu = gpu

    def Event(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):  # noqa: N802
        return Event(enable_timing, blocking, interprocess, gpu=self.gpu)

    def synchronize(self, device=None) -> None:
        pass                      # every launch ran to completion when it returned

    def current_device(self) -> int:
        return 0

    def device_count(self) -> int:
        return 1

    def is_available(self) -> bool:
        return True

    def get_device_capability(self, device=None) -> tuple:
        return tuple(self.gpu.preset.compute_capability)

    def get_device_name(self, device=None) -> str:
        return f"{self.gpu.preset.name} (warpsim, predicted)"


_SAID_NO_LAUNCH: list = []   # elapsed_time's NaN said (once a process)
_MADE: list = []            # the PredictedGPU of each warpsim driver Triton made (it makes one)


def made(gpu: PredictedGPU) -> None:
    _MADE.append(gpu)


def active_gpu() -> PredictedGPU:
    """The predicted GPU of the warpsim driver Triton made last (one is made here if none was)."""
    if not _MADE:
        made(PredictedGPU())
    return _MADE[-1]
