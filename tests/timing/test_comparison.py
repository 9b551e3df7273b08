"""Two versions side by side: warpsim.timing.compare_timings, warpsim.cli.compare.compare and `warpsim compare`."""

import numpy as np
import pytest

import warpsim as ws
from warpsim import cli
from warpsim.cli.compare import CompareError, compare
from warpsim.timing import combine, compare_timings, sampled_cta_ids

BRANCHES = r"""
extern "C" __global__ void on_lane(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if (threadIdx.x % 2 == 0) { for (int k = 0; k < n; ++k) v = fmaf(v, 0.999f, 0.5f); }
    else                      { for (int k = 0; k < n; ++k) v = (v + 0.25f) * 0.998f; }
    out[i] = v;
}
extern "C" __global__ void on_warp(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if ((threadIdx.x / 32) % 2 == 0) { for (int k = 0; k < n; ++k) v = fmaf(v, 0.999f, 0.5f); }
    else                             { for (int k = 0; k < n; ++k) v = (v + 0.25f) * 0.998f; }
    out[i] = v;
}
"""


def _reference(x, n, on_lane):
    v = x.astype(np.float32).copy()
    idx = np.arange(len(x)) % 256
    first = (idx % 2 == 0) if on_lane else ((idx // 32) % 2 == 0)
    for _ in range(n):
        v = np.where(first, np.float32(v * np.float32(0.999) + np.float32(0.5)),
                     np.float32((v + np.float32(0.25)) * np.float32(0.998)))
    return v


def test_divergent_branch_compares_slower_and_says_why():
    mod = ws.RawModule(code=BRANCHES)
    n_ctas, n = 264, 512
    host = np.random.default_rng(7).random(n_ctas * 256, dtype=np.float32)
    x = ws.asarray(host)
    outs = []

    def args_for(xp):
        outs.append(xp.full(n_ctas * 256, np.nan, dtype=np.float32))
        return (outs[-1], x, np.int32(n))

    lane, warp = mod.get_function("on_lane"), mod.get_function("on_warp")
    c = compare(lane, warp, gpu="h200", grid=n_ctas, block=256, args=args_for, max_ctas=2)
    assert c.labels == ("on_lane", "on_warp") and c.faster == "on_warp"
    assert 1.5 < c.a.cycles / c.b.cycles < 2.2      # both sides of the branch add up, against one
    assert c.speedup > 1.3
    assert any("warp instructions" in r for r in c.reasons)
    text = c.render()
    assert "on_warp is" in text and "x faster than on_lane" in text
    got = outs[1].get()
    ref = _reference(host, n, on_lane=False)
    for cta in sampled_cta_ids(n_ctas, 2):      # the CTAs the prediction ran were written, and right
        assert np.allclose(got[cta * 256:(cta + 1) * 256], ref[cta * 256:(cta + 1) * 256], rtol=1e-5)


def test_compare_timings_checks_gpus_and_combines_launches():
    mod = ws.RawModule(code=BRANCHES)
    k = mod.get_function("on_warp")
    x = ws.asarray(np.random.default_rng(1).random(132 * 256, dtype=np.float32))
    out = ws.zeros(132 * 256, dtype=np.float32)
    h200 = compare(k, k, gpu="h200", grid=132, block=256, args=(out, x, np.int32(16)), max_ctas=2)
    assert abs(h200.ratio - 1) < 1e-9 and "same time" in h200.summary()
    l4 = compare(k, gpu="l4", grid=132, block=256, args=(out, x, np.int32(16)), max_ctas=2)
    with pytest.raises(ValueError, match="different GPUs"):
        compare_timings(h200.a, l4.a)
    both = combine([h200.a, h200.b])
    assert both.time_s == pytest.approx(2 * h200.a.time_s)
    assert both.details["instructions"] == pytest.approx(2 * h200.a.details["instructions"])
    assert both.stalls["wait"] == pytest.approx(h200.a.stalls["wait"])


MATMUL = r"""
extern "C" __global__ void mm(float* C, const float* A, const float* B, int N) {
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.f;
#if TILED
    __shared__ float As[16][16], Bs[16][16];
    for (int k0 = 0; k0 < N; k0 += 16) {
        As[threadIdx.y][threadIdx.x] = A[r * N + k0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + c];
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
#else
    for (int k = 0; k < N; ++k) acc += A[r * N + k] * B[k * N + c];
#endif
    C[r * N + c] = acc;
}
"""
ARGS = r"""
import numpy as np
N = 128
rng = np.random.default_rng(11)
A = rng.random((N, N), dtype=np.float32)
B = rng.random((N, N), dtype=np.float32)
made = []
def arguments(xp):
    C = xp.full(N * N, np.nan, dtype=np.float32)
    made.append(C)
    return (C, xp.asarray(A), xp.asarray(B), np.int32(N))
"""


def test_cli_compares_two_defines_of_one_cu(tmp_path, capsys):
    (tmp_path / "mm.cu").write_text(MATMUL)
    (tmp_path / "setup.py").write_text(ARGS)
    argv = ["compare", str(tmp_path / "mm.cu"), "--kernel", "mm", "--grid", "8,8", "--block", "16,16",
            "--args", f"{tmp_path / 'setup.py'}:arguments", "--a-define", "TILED=0", "--b-define", "TILED=1",
            "--gpu", "h200", "--ctas", "2", "--lines"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "mm.cu -DTILED=0" in out and "mm.cu -DTILED=1" in out
    assert "x faster than" in out and "predicted time" in out and "bottleneck" in out
    assert "predicted stalls by source line" in out


def test_python_api_cu_sides_compute_the_product(tmp_path):
    import runpy
    (tmp_path / "mm.cu").write_text(MATMUL)
    setup = runpy.run_path(str(tmp_path / "setup.py") if (tmp_path / "setup.py").write_text(ARGS) else "")
    c = compare(str(tmp_path / "mm.cu"), kernel="mm", grid=(8, 8), block=(16, 16), args=setup["arguments"],
                defines_a=("TILED=0",), defines_b=("TILED=1",), gpu="h200", max_ctas=2)
    assert c.a.details["instructions"] != c.b.details["instructions"]
    ref = setup["A"] @ setup["B"]
    for C in setup["made"]:
        got = C.get().reshape(128, 128)
        written = ~np.isnan(got)
        for cta in sampled_cta_ids((8, 8, 1), 2):                       # the CTAs the prediction ran
            y, x = divmod(cta, 8)
            assert written[16 * y:16 * y + 16, 16 * x:16 * x + 16].all()
        assert np.allclose(got[written], ref[written], rtol=1e-4)


SCRIPT = r"""
import sys
import numpy as np
import warpsim as cp
block = int(sys.argv[1])
k = cp.RawModule(code='''
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}''').get_function("axpy")
n = 1 << 18
rng = np.random.default_rng(3)
xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
x, y = cp.asarray(xh), cp.asarray(yh)
k(((n + block - 1) // block,), (block,), (y, x, np.float32(2.0), np.int32(n)))
assert np.allclose(y.get(), 2.0 * xh + yh)
"""


def test_cli_compares_two_programs(tmp_path, capsys):
    script = tmp_path / "axpy.py"
    script.write_text(SCRIPT)
    assert cli.main(["compare", f"{script} 32", f"{script} 256", "--gpu", "h200", "--labels", "b32,b256"]) == 0
    out = capsys.readouterr().out
    assert "b256 is" in out and "x faster than b32" in out


def test_cli_errors_name_the_side(tmp_path, capsys):
    (tmp_path / "mm.cu").write_text(MATMUL)
    assert cli.main(["compare", str(tmp_path / "mm.cu"), str(tmp_path / "mm.cu"), "--grid", "1",
                     "--block", "16,16"]) == 1
    err = capsys.readouterr().err               # its one kernel, on default arguments: a fault, with the side
    assert "mm.cu (A): global load" in err and "out of bounds" in err
    (tmp_path / "two.cu").write_text(MATMUL + '\nextern "C" __global__ void other(float* x) { x[0] = 1.0f; }\n')
    assert cli.main(["compare", str(tmp_path / "two.cu"), str(tmp_path / "two.cu"), "--grid", "1",
                     "--block", "16,16"]) == 1
    err = capsys.readouterr().err
    assert "name the kernel to launch (--kernel)" in err and "other" in err
    assert cli.main(["compare", "nothing.txt", "nothing.txt"]) == 1
    assert "neither a .py program nor a .cu file" in capsys.readouterr().err
    assert cli.main(["compare", str(tmp_path / "mm.cu")]) == 2
    with pytest.raises(CompareError, match="needs --grid and --block"):
        compare(str(tmp_path / "mm.cu"), kernel="mm", defines_b=("TILED=1",))
