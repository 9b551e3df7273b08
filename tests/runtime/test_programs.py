"""Whole CUDA C++ programs on warpsim's CUDA runtime: built with `warpsim nvcc`, run with `warpsim run`.

Each program reads random inputs from files the test writes and writes its results
to files (or prints them), compared with NumPy or with what a GPU gives.
"""

import subprocess
from pathlib import Path

import numpy as np
import pytest

from warpsim.cli.nvcc import nvcc_path
from warpsim.timing.presets import gpu_preset

PROGRAMS = Path(__file__).parent / "programs"

pytestmark = pytest.mark.programs


def test_vector_add_matches_numpy(built, run, tmp_path):
    rng = np.random.default_rng(7)
    n = 1000 + int(rng.integers(0, 100))            # not a multiple of the block size
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    result = run(built("vector_add"), "a.bin", "b.bin", "c.bin", "1.5")
    assert result.returncode == 0, result.stderr
    assert f"vector_add done n={n}" in result.stdout
    c = np.fromfile(tmp_path / "c.bin", dtype=np.float32)
    expected = (a.astype(np.float64) * 1.5 + b).astype(np.float32)    # nvcc contracts to one fma
    np.testing.assert_allclose(c, expected, rtol=1e-6, atol=1e-7)


def test_out_of_bounds_write_inside_the_mapped_pages_does_not_fault(built, run):
    """An H200 ran fault.cu's write 255,744 bytes past a 256-byte allocation without a fault
    (validation/programs/h200/native.json); warpsim's report of it is a warning on stderr."""
    result = run(built("fault"))
    assert result.returncode == 1, result.stdout + result.stderr          # the program's own check
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines == {"sync": "cudaSuccess", "malloc": "cudaSuccess", "last": "cudaSuccess",
                     "again": "cudaSuccess", "string": "no error"}
    assert "warning" in result.stderr and "255744 bytes past the end" in result.stderr
    assert "fault.cu:7" in result.stderr and "A GPU does not fault here" in result.stderr


def test_stray_write_below_the_first_allocation_does_not_fault(built, run):
    """The first cudaMalloc starts a 2 MiB page past the driver's own memory, as on an H100 (its first
    allocation at 0x7f3009e00000, and a read 1 KB before it did not fault): 1 KB before it is a
    stray access a GPU lets through, reported as a warning, not cudaErrorIllegalAddress."""
    result = run(built("fault"), "-4")                                    # x[i - 256]: 1 KB before x
    assert result.returncode == 1, result.stdout + result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["sync"] == "cudaSuccess" and lines["string"] == "no error"
    assert "1024 bytes before the allocation at 0x7f0000200000" in result.stderr
    assert "mapped for a live allocation or the driver" in result.stderr


def test_out_of_bounds_write_far_away_is_a_sticky_illegal_address(built, run):
    result = run(built("fault"), str(1 << 32))                            # 1 TiB past: nothing mapped
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines == {"sync": "cudaErrorIllegalAddress", "malloc": "cudaErrorIllegalAddress",
                     "last": "cudaErrorIllegalAddress", "again": "cudaSuccess",
                     "string": "an illegal memory access was encountered"}
    assert "write_past_end" in result.stderr
    assert "fault.cu:7" in result.stderr               # -lineinfo: the source line


def test_static_runtime_is_refused_with_the_rebuild_command(built, run, tmp_path):
    static = tmp_path / "static_app"           # nvcc's default: the runtime linked in
    subprocess.run([str(nvcc_path()), str(PROGRAMS / "fault.cu"), "-o", str(static)], check=True,
                   capture_output=True)
    result = run(static)
    assert result.returncode == 2
    assert "warpsim nvcc" in result.stderr and "-cudart shared" in result.stderr


@pytest.mark.slow
def test_reduction_with_shared_memory_and_atomics(built, run, tmp_path):
    rng = np.random.default_rng(11)
    x = rng.integers(-1000, 1000, 5000, dtype=np.int32)
    x.tofile(tmp_path / "x.bin")
    result = run(built("reduction"), "x.bin")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"sum {int(x.sum())}"
    bins = np.bincount(x & 15, minlength=16)
    assert lines[1:] == [f"bin {k} {bins[k]}" for k in range(16)]


@pytest.mark.slow
def test_constant_table_device_variable_and_printf(built, run, tmp_path):
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, 300, dtype=np.int32)
    table = rng.random(16, dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    table.tofile(tmp_path / "t.bin")
    result = run(built("symbols"), "x.bin", "t.bin", "y.bin")
    assert result.returncode == 0, result.stderr
    y = np.fromfile(tmp_path / "y.bin", dtype=np.float32)
    np.testing.assert_array_equal(y, table[x & 15] * x.astype(np.float32))
    assert result.stdout.splitlines() == [
        "before launch", f"kernel says 300 {table[1]:.2f}", "after launch", "hits 300 300",
        "past end: cudaErrorInvalidValue"]


@pytest.mark.slow
def test_device_properties_events_managed_memory_and_unsupported_calls(built, run):
    result = run(built("device"))
    assert result.returncode == 0, result.stderr
    out = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    h200 = gpu_preset("h200")
    assert out["count"] == "1 device 0"
    assert out["name"] == "NVIDIA H200"                # the driver's name, as on the H200 (h200/native.json)
    assert f"simulated {h200.full_name}" in result.stderr
    assert out["cc"] == "9.0"
    assert out["sms"] == f"{h200.sms} {h200.sms}"
    assert out["warp"] == "32" and out["maxthreads"] == "1024"
    assert out["smem_optin"] == str(h200.max_shared_per_block)
    assert out["bad"] == "device cudaErrorInvalidDevice"
    assert out["managed"] == "cudaSuccess worst 0"     # the host's writes, the kernels', the host's reads
    assert out["elapsed_positive"] == "1 empty 0"      # predicted time of the two kernels; none between
    assert out["pinned"] == "11.5"                     # managed[10] = (10 * 2 + 1) * 0.5 + 1
    assert out["graph"] == "cudaSuccess cudaSuccess"   # two empty graphs, as on the H200


@pytest.mark.slow
def test_thrust_sort_and_reduce(built, run, tmp_path):
    rng = np.random.default_rng(5)
    keys = rng.integers(-(1 << 30), 1 << 30, 3000, dtype=np.int32)
    keys.tofile(tmp_path / "keys.bin")
    result = run(built("thrust_sort"), "keys.bin", "sorted.bin")
    assert result.returncode == 0, result.stderr
    np.testing.assert_array_equal(np.fromfile(tmp_path / "sorted.bin", dtype=np.int32), np.sort(keys))
    assert result.stdout.strip() == f"total {int(keys.astype(np.int64).sum())}"


def test_host_memory_before_the_first_call_is_fresh_and_early_registrations_work(built, run, tmp_path):
    """The runtime's registration calls before main queue in C: a program's first mallocs get
    fresh zero pages as on a GPU machine (starting Python there used to leave recycled
    non-zero blocks, and HeCBench asmooth's reference, which reads a buffer it never wrote,
    failed), and the kernels and symbols registered then are found at the first call."""
    rng = np.random.default_rng(23)
    x = rng.standard_normal(1000 + int(rng.integers(0, 50)), dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    result = run(built("fresh_heap"), "x.bin", "y.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "nonzero before any CUDA call: 0" in result.stdout
    assert "launches 2" in result.stdout
    offsets = np.array([1, -2, 3, -4], dtype=np.float32)[np.arange(x.size) & 3]
    np.testing.assert_array_equal(np.fromfile(tmp_path / "y.bin", dtype=np.float32), x + offsets)


def test_sass_only_program_runs_on_the_sass_executor(built, run, tmp_path):
    """--gpu-architecture=compute_90 --gpu-code=sm_90: no PTX in the fatbinary; the cubin runs on the SASS executor
    (constants, __device__ variables, dynamic shared memory, atomics, a sticky fault)."""
    rng = np.random.default_rng(21)
    x, w = rng.standard_normal(1000, dtype=np.float32), rng.standard_normal(8, dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    w.tofile(tmp_path / "w.bin")
    result = run(built("sass_only", "--gpu-architecture=compute_90", "--gpu-code=sm_90"), "x.bin", "w.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    expected = float((x.astype(np.float64) * w[np.arange(1000) & 7]).sum())
    assert abs(float(lines["total"]) - expected) < 1e-4 * max(1.0, abs(expected))
    assert lines["visits"] == "8" and lines["timed"] == "1"
    assert lines["fault"] == "cudaErrorIllegalAddress"
    assert "has only SASS" in result.stderr and "read_past" in result.stderr


@pytest.mark.slow
def test_host_registered_memory_is_addressed_in_place(built, run, tmp_path):
    x = np.random.default_rng(13).standard_normal(777, dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    result = run(built("host_register"), "x.bin", "y.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["same address 1", "again cudaErrorHostMemoryAlreadyRegistered",
                                          "unregistered twice cudaErrorHostMemoryNotRegistered"]
    np.testing.assert_array_equal(np.fromfile(tmp_path / "y.bin", dtype=np.float32), x * np.float32(3))


def test_texture_object_over_a_cuda_array_matches_numpy(built, run, tmp_path):
    """tex2D with clamp addressing and point filtering at texel centres and outside the image,
    surf2Dwrite into a second array read back with cudaMemcpy2DFromArray, linear and pitch2D
    resources, and the codes of refused calls."""
    rng = np.random.default_rng(21)
    width, height = 37, 11
    image = rng.standard_normal((height, width), dtype=np.float32)
    ys, xs = np.mgrid[0:height, 0:width]
    centres = np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1)
    outside = np.array([[-3.5, 2.5], [width + 5.0, height + 7.0], [-1.0, -1.0], [2.5, height + 0.25],
                        [width - 0.01, -20.0], [1e6, 3.5]])
    scattered = rng.uniform([-10, -10], [width + 10, height + 10], size=(64, 2))
    coords = np.concatenate([centres, outside, scattered]).astype(np.float32)
    image.tofile(tmp_path / "image.bin")
    coords.tofile(tmp_path / "coords.bin")
    result = run(built("texture"), "image.bin", "coords.bin", "samples.bin", "doubled.bin",
                 str(width), str(height), "resources.bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"texture done n={len(coords)}" in result.stdout
    assert "destroy again: cudaErrorInvalidValue" in result.stdout
    ix = np.clip(np.floor(coords[:, 0]).astype(np.int64), 0, width - 1)     # point filter, clamp
    iy = np.clip(np.floor(coords[:, 1]).astype(np.int64), 0, height - 1)
    samples = np.fromfile(tmp_path / "samples.bin", dtype=np.float32)
    np.testing.assert_array_equal(samples, image[iy, ix])
    doubled = np.fromfile(tmp_path / "doubled.bin", dtype=np.float32).reshape(height, width)
    np.testing.assert_array_equal(doubled, 2 * image)
    resources = np.fromfile(tmp_path / "resources.bin", dtype=np.float32)
    texels = image.size
    np.testing.assert_array_equal(resources[:texels], image.ravel())          # tex1Dfetch
    np.testing.assert_array_equal(resources[texels:texels + 16], 0)           # past the end reads 0
    np.testing.assert_array_equal(resources[texels + 16:], image.ravel())     # wrapped normalized
    # the codes the H200 gave (h200/native.json); it died at "free a non-array", warpsim answers a code
    for line in ("mixed widths: cudaErrorInvalidChannelDescriptor", "free a non-array: cudaErrorInvalidValue",
                 "surface on pitch2D: cudaErrorInvalidValue", "copy past the array: cudaErrorInvalidValue",
                 "resource view: cudaErrorInvalidValue"):
        assert line in result.stdout
