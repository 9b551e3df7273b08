"""Tutorial-style Triton scripts with torch run unchanged under `warpsim run` (warpsim's Triton backend).

Each script (scripts/) is what a Triton user writes for a GPU: torch tensors on
Triton's active device, kernel[grid](...) with a lambda grid, do_bench,
@triton.autotune. It runs in a subprocess, saves its random inputs and its
outputs, and the test compares them with NumPy. Times are the timing model's
predictions (deterministic), so the tests check how they relate, never a
wall-clock time. Skipped without triton or torch (torch is not in the test
extra: PyPI's default torch is a multi-GB CUDA build; docs/triton.md says how to
install the CPU build).
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("triton")
pytest.importorskip("torch")

pytestmark = pytest.mark.triton

SCRIPTS = Path(__file__).parent / "scripts"


def run_script(name, *args, tmp_path, gpu=None, warpsim_run=True, env=None):
    """(CompletedProcess, arrays the script saved) of scripts/<name> run with args and OUT.npz last,
    under `warpsim run [--gpu gpu]` (or by plain python with env when warpsim_run is False)."""
    out = tmp_path / "out.npz"
    command = [sys.executable, "-m", "warpsim", "run"] if warpsim_run else [sys.executable]
    if gpu:
        command += ["--gpu", gpu]
    command += [str(SCRIPTS / name), *map(str, args), str(out)]
    environment = {k: v for k, v in os.environ.items() if k not in ("WARPSIM_TRITON", "WARPSIM_GPU")}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                            env={**environment, **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr
    return result, dict(np.load(out)) if out.exists() else {}


def test_vector_add_runs_unchanged_with_predicted_do_bench(tmp_path):
    result, saved = run_script("vector_add.py", 98_432, 4096, 1 << 20, tmp_path=tmp_path)
    np.testing.assert_array_equal(saved["output"], saved["x"] + saved["y"])
    times = saved["times"]
    assert (times > 0).all()
    assert times[2] > times[1], "a 1M-element add must be predicted slower than a 4K-element one"
    assert times[1] > 1e-3, "do_bench's time includes the launch overhead CUDA events see (> 1 us)"
    assert "predicted for the NVIDIA H200" in result.stderr and "not measured" in result.stderr


@pytest.mark.slow
def test_gpu_option_changes_the_prediction_and_says_which_gpu(tmp_path):
    h200, saved_h200 = run_script("vector_add.py", 1 << 20, tmp_path=tmp_path)
    a100, saved_a100 = run_script("vector_add.py", 1 << 20, tmp_path=tmp_path, gpu="a100")
    assert "A100" in a100.stderr and "H200" not in a100.stderr
    assert saved_a100["times"][0] > saved_h200["times"][0], "the A100's HBM is slower than the H200's"


@pytest.mark.slow
def test_softmax_matches_numpy_and_times_each_num_warps(tmp_path):
    rows, cols = 301, 781
    _, saved = run_script("softmax.py", rows, cols, tmp_path=tmp_path)
    x = saved["x"].astype(np.float64)
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(saved["y"], expected, rtol=1e-5, atol=1e-7)
    assert list(saved["warps"]) == [2, 4, 8, 16] and (saved["times"] > 0).all()


@pytest.mark.slow
def test_matmul_autotune_chooses_a_config_on_predicted_time(tmp_path):
    _, saved = run_script("matmul_autotune.py", 192, tmp_path=tmp_path)
    expected = saved["a"].astype(np.float32) @ saved["b"].astype(np.float32)
    np.testing.assert_allclose(saved["c"].astype(np.float32), expected, rtol=1e-2, atol=5e-2)
    configs = {(32, 32, 32, 4, 2), (64, 64, 32, 4, 3), (128, 64, 32, 4, 3)}
    assert (*saved["block"], int(saved["num_warps"]), int(saved["num_stages"])) in configs
    assert float(saved["time"]) > 0


@pytest.mark.slow
def test_environment_switch_activates_and_plain_python_keeps_triton_inactive(tmp_path):
    _, saved = run_script("vector_add.py", 5000, tmp_path=tmp_path, warpsim_run=False,
                          env={"WARPSIM_TRITON": "1"})
    np.testing.assert_array_equal(saved["output"], saved["x"] + saved["y"])
    import torch
    if torch.cuda.is_available():
        return                                      # a GPU machine: Triton's NVIDIA driver runs it
    out = tmp_path / "out.npz"
    out.unlink()
    plain = subprocess.run([sys.executable, str(SCRIPTS / "vector_add.py"), "5000", str(out)],
                           capture_output=True, text=True, timeout=600,
                           env={k: v for k, v in os.environ.items() if k != "WARPSIM_TRITON"})
    assert plain.returncode != 0 and not out.exists()
    assert "0 active drivers" in plain.stderr       # as on a machine without a GPU: warpsim stays out


def test_kernels_write_torch_tensors_in_place_and_faults_name_the_storage(tmp_path):
    n = 1000
    _, saved = run_script("in_place.py", n, tmp_path=tmp_path)
    np.testing.assert_allclose(saved["y"], np.float32(2) * saved["x"] + saved["before"], rtol=1e-6)
    fault = str(saved["fault"])
    assert "out of bounds" in fault and "past the end of the 4000-byte host range" in fault, fault
    assert "a tensor's storage, given to axpy_kernel" in fault


def test_perf_report_says_predicted_and_torch_operators_get_no_time(tmp_path):
    result, _ = run_script("perf_report.py", tmp_path=tmp_path)
    table = (tmp_path / "vector-add.csv").read_text().splitlines()
    assert table[0] == "size,Triton (predicted GB/s),Torch (predicted GB/s)", table[0]
    rows = [[float(v or "nan") for v in line.split(",")] for line in table[1:]]   # NaN is written empty
    assert [row[0] for row in rows] == [4096, 65536]
    assert 0 < rows[0][1] < rows[1][1], "a 64K add amortizes the launch overhead better than a 4K add"
    assert all(row[2] != row[2] for row in rows), "torch's add runs on the CPU: NaN, not a predicted time"
    assert "vector-add: GB/s from times predicted for the NVIDIA H200" in result.stderr
    assert "launched no Triton kernel" in result.stderr
    assert "Triton (predicted GB/s)" in result.stdout
