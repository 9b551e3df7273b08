"""What Triton kernels take under warpsim's backend, and the tools on Triton scripts.

Tensor descriptors made on the host (TensorDescriptor arguments) and in the
kernel (tl.make_tensor_descriptor) lowered as on the GPU the run is for (TMA
at sm_90, plain loads at sm_80), bf16 scalar arguments, NumPy arrays written in
place, pointers read from memory (a tensor of data_ptr()s), and `warpsim check`
and `warpsim compare` naming the kernels' Python lines, do_bench bound by name before the
driver is made and do_bench_cudagraph. Each script
(scripts/) runs in a subprocess under `warpsim run` and its outputs are compared
with NumPy. fp8 matmuls (tutorial 03 on Hopper) run wgmma with .e4m3/.e5m2 inputs. Skipped
without triton or torch.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")

from test_triton_backend import SCRIPTS, run_script  # noqa: E402  (the test folder is on sys.path)

pytestmark = pytest.mark.triton


def bf16(value: float) -> np.float32:
    """value rounded to bfloat16 (nearest even), as an fp32."""
    bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return np.array(bits, dtype=np.uint32).view(np.float32)[()]


def test_descriptors_at_sm90_are_tma_and_bf16_scalars_round_to_nearest_even(tmp_path):
    _, saved = run_script("descriptors.py", 100, 72, 1.3, tmp_path=tmp_path)
    expected = saved["x"] * bf16(1.3)
    assert bf16(1.3) != np.float32(1.3)
    np.testing.assert_array_equal(saved["host_out"], expected)      # edge boxes clipped: no -1 left
    np.testing.assert_array_equal(saved["device_out"], expected)
    assert str(saved["backend"]) == "cuda" and int(saved["arch"]) == 90
    assert tuple(saved["capability"]) == (9, 0), "torch.cuda.get_device_capability() answers for the H200"
    assert "cp.async.bulk.tensor" in str(saved["host_ptx"]), "host-side descriptors: TMA at sm_90"
    device_ptx = str(saved["device_ptx"])
    assert "tensormap.replace" in device_ptx and "cp.async.bulk.tensor" in device_ptx, \
        "descriptors made in the kernel: Triton's native TMA lowering (target backend 'cuda')"


@pytest.mark.slow
def test_descriptors_at_sm80_are_decomposed_and_still_right(tmp_path):
    _, saved = run_script("descriptors.py", 70, 40, -0.7, tmp_path=tmp_path, gpu="a100")
    expected = saved["x"] * bf16(-0.7)
    np.testing.assert_array_equal(saved["host_out"], expected)
    np.testing.assert_array_equal(saved["device_out"], expected)
    assert int(saved["arch"]) == 80 and tuple(saved["capability"]) == (8, 0)
    assert "cp.async.bulk.tensor" not in str(saved["host_ptx"]) + str(saved["device_ptx"])


def test_numpy_arrays_are_kernel_arguments_written_in_place(tmp_path):
    n = 1000
    _, saved = run_script("numpy_arrays.py", n, tmp_path=tmp_path)
    x, before = saved["x"], saved["before"]
    expected = before.copy()
    expected[5:5 + n] = np.float32(2) * x[0:2 * n:2] + before[5:5 + n]
    np.testing.assert_array_equal(saved["y"], expected)               # the view y[5:], in y itself
    assert not saved["moved"]
    fault = str(saved["fault"])
    assert "past the end of the 4040-byte host range" in fault and "given to axpy_kernel" in fault, fault


def test_pointers_read_from_memory_reach_tensors_whose_address_was_taken(tmp_path):
    _, saved = run_script("pointer_table.py", tmp_path=tmp_path)
    for i in range(3):
        np.testing.assert_array_equal(saved[f"out{i}"], saved[f"x{i}"] * np.float32(i + 1))
    assert "use after free" in str(saved["fault"]) or "out of bounds" in str(saved["fault"]), saved["fault"]


def test_check_reports_a_triton_kernels_python_line(tmp_path):
    out = tmp_path / "out.npz"
    result = subprocess.run([sys.executable, "-m", "warpsim", "check", "--tool", "memcheck", "python",
                             str(SCRIPTS / "in_place.py"), "1000", str(out)],
                            capture_output=True, text=True, timeout=600,
                            env={k: v for k, v in os.environ.items() if k not in ("WARPSIM_TRITON", "WARPSIM_GPU")})
    assert result.returncode == 1, result.stdout + result.stderr
    line = next(n for n, text in enumerate((SCRIPTS / "in_place.py").read_text().splitlines(), 1)
                if "y = tl.load(y_ptr" in text)
    assert f"in_place.py:{line}:axpy_kernel" in result.stdout, result.stdout
    assert "Invalid __global__ read" in result.stdout and "ERROR SUMMARY: 1 error" in result.stdout


@pytest.mark.slow
def test_compare_of_two_triton_runs_names_their_python_lines(tmp_path):
    script = SCRIPTS / "vector_add.py"
    result = subprocess.run([sys.executable, "-m", "warpsim", "compare", "--lines",
                             f"{script} 4096 {tmp_path / 'a.npz'}", f"{script} 262144 {tmp_path / 'b.npz'}",
                             "--kernel", "add_kernel"], capture_output=True, text=True, timeout=600,
                            env={k: v for k, v in os.environ.items() if k not in ("WARPSIM_TRITON", "WARPSIM_GPU")})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "faster than" in result.stdout
    assert "predicted stalls by source line" in result.stdout and "vector_add.py:" in result.stdout


@pytest.mark.parametrize("fmt, shape", [("e5m2", (96, 80, 96)), ("e4m3", (64, 128, 160))])
def test_fp8_matmul_at_sm90_runs_wgmma_with_fp8_inputs(tmp_path, fmt, shape):
    from warpsim.semantics.tensor_sum import aligned_sum
    _, saved = run_script("matmul_fp8.py", *shape, fmt, tmp_path=tmp_path)
    a, b = saved["a"].astype(np.float64), saved["b"].astype(np.float64)
    acc = np.zeros((1,) + saved["c"].shape)             # one wgmma per 32 of K, as the H200 adds fp8
    for k0 in range(0, a.shape[1], 32):
        acc = aligned_sum(a[None, :, k0:k0 + 32], b[k0:k0 + 32].T[None], acc, fmt).astype(np.float64)
    np.testing.assert_array_equal(saved["c"], acc[0].astype(np.float16).astype(np.float32))
    assert f"wgmma.mma_async.sync.aligned.m64n64k32.f32.{fmt}.{fmt}" in str(saved["ptx"])


def test_do_bench_imported_by_name_before_the_driver_is_warpsims(tmp_path):
    _, saved = run_script("early_do_bench.py", tmp_path=tmp_path)
    assert str(saved["module"]) == str(saved["graph_module"]) == "warpsim.runtime.triton.bench"
    events, graph = float(saved["events"]), float(saved["graph"])
    assert 0 < graph < events, "a graph replay's time has no per-launch event overhead"
    assert events - graph > 1e-3, "the launch overhead events see is over a microsecond"
    from warpsim.timing.presets import gpu_preset
    assert int(saved["sms"]) == gpu_preset("h200").sms and tuple(saved["capability"]) == (9, 0)
    assert bool(saved["cuda_available"]), "a script's torch.cuda.is_available() answers for the simulated GPU"
