"""Copies to and from pinned host memory are timed as host <-> device copies on the event clock
(tests/runtime/programs/pinned_copies.cu). Pinned allocations live in the device heap so host and
kernels share their address; their copies used to be timed as device-to-device, 40x too fast
for the CUDA samples' asyncAPI against the H200."""

import pytest

from warpsim.timing.presets import gpu_preset

pytestmark = pytest.mark.programs


def test_pinned_copies_cross_pcie_and_device_copies_do_not(built, run):
    n = 1 << 20
    result = run(built("pinned_copies"), str(n))
    assert result.returncode == 0, result.stdout + result.stderr
    out = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert out["last"] == "cudaSuccess"
    source = out["source"]
    assert out["hostalloc"] == f"{source} pageable {source}"      # the bytes went through both ways
    h200, size = gpu_preset("h200"), 4 * n
    overhead_ms = h200.copy_overhead_us * 1e-3
    pcie_ms = size / (h200.pcie_gbps * 1e9) * 1e3 + overhead_ms
    for name in ("HtoD-pinned", "DtoH-hostalloc", "DtoH-pageable"):
        assert float(out[name]) == pytest.approx(pcie_ms, rel=1e-3), name
    assert float(out["DtoD"]) == pytest.approx(2 * size / (h200.hbm_copy_gbps * 1e9) * 1e3 + overhead_ms, rel=1e-3)
    assert float(out["DtoD"]) < pcie_ms / 10
