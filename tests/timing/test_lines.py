"""Stall reasons per source line: each line's predicted warp-cycles, by reason, and in `warpsim profile`."""

import numpy as np
import pytest

import warpsim as ws
from warpsim import cli
from warpsim.sass.stall_reasons import STALL_REASONS
from warpsim.timing import predict

# Line numbers matter: each statement of interest on its own line.
SOURCE = r"""extern "C" __global__ void mixed(float* out, const float* in, int stride) {
    __shared__ float s[32 * 33];
    int t = threadIdx.x;
    float v = in[blockIdx.x * blockDim.x + t];
    s[(t % 32) * stride + t / 32] = v;
    __syncthreads();
    float w = s[(t % 32) * stride + (t / 32 + 1) % 32];
    out[blockIdx.x * blockDim.x + t] = v + w;
}
"""
LOAD_LINE, STORE_SHARED_LINE, BARRIER_LINE, LOAD_SHARED_LINE = 4, 5, 6, 7


def _run(stride):
    mod = ws.RawModule(code=SOURCE)
    k = mod.get_function("mixed")
    n_ctas, block = 264, 1024
    host = np.random.default_rng(3).random(n_ctas * block, dtype=np.float32) + 0.5
    x = ws.asarray(host)
    out = ws.full(n_ctas * block, np.nan, dtype=np.float32)
    from warpsim.api.raw import pack_arguments
    params = pack_arguments(k.kernel_name, k.params, (out, x, np.int32(stride)))
    timing = predict(k.loaded_module, k.kernel_name, (n_ctas,), (block,), params, 0, gpu="h200", max_ctas=2)
    return timing, host, out


def _line(timing, number):
    return next(r for r in timing.lines if r["line"] == number)


@pytest.fixture(scope="module")
def conflicted():
    return _run(32)      # every lane of a warp on one bank: 32-way conflicts on lines 5 and 7


def test_lines_add_up_to_the_launch(conflicted):
    timing, _, _ = conflicted
    assert abs(sum(r["samples_pct"] for r in timing.lines) - 100.0) < 1e-6
    issued = sum(r["stalls"].get("selected", 0.0) for r in timing.lines)
    assert set(timing.stalls) <= {r.name for r in STALL_REASONS if r.produced_by}
    for reason, ratio in timing.stalls.items():
        by_lines = sum(r["stalls"].get(reason, 0.0) for r in timing.lines) / issued
        assert by_lines == pytest.approx(ratio, rel=1e-6, abs=1e-9), reason


def test_each_line_waits_for_its_own_reason(conflicted):
    timing, _, _ = conflicted
    mio = {r["line"]: r["stalls"].get("mio_throttle", 0.0) for r in timing.lines}
    assert max(mio, key=mio.get) in (STORE_SHARED_LINE, LOAD_SHARED_LINE)
    bar = _line(timing, BARRIER_LINE)["stalls"]
    assert max(bar, key=bar.get) == "barrier"
    assert _line(timing, LOAD_LINE)["stalls"].get("long_scoreboard", 0.0) > 0 or \
        _line(timing, STORE_SHARED_LINE)["stalls"].get("long_scoreboard", 0.0) > 0
    assert all(r["ptx_lines"] for r in timing.lines if r["line"] in (LOAD_LINE, BARRIER_LINE))


def test_padding_removes_the_shared_memory_lines_stalls(conflicted):
    timing, _, _ = conflicted
    padded, _, _ = _run(33)
    assert padded.time_s < timing.time_s
    for line in (STORE_SHARED_LINE, LOAD_SHARED_LINE):
        assert _line(padded, line)["stalls"].get("mio_throttle", 0.0) < \
            _line(timing, line)["stalls"].get("mio_throttle", 0.0)
    assert _line(padded, LOAD_SHARED_LINE)["stalls"].get("mio_throttle", 0.0) < \
        _line(timing, LOAD_SHARED_LINE)["stalls"].get("mio_throttle", 0.0)


def test_the_sampled_ctas_wrote_what_the_kernel_computes(conflicted):
    timing, host, out = conflicted
    got = out.get().reshape(264, 1024)
    x = host.reshape(264, 1024)
    t = np.arange(1024)
    s_index = (t % 32) * 32 + t // 32
    shared = np.empty((264, 32 * 33), np.float32)
    shared[:, s_index] = x
    w = shared[:, (t % 32) * 32 + (t // 32 + 1) % 32]
    from warpsim.timing import sampled_cta_ids
    for cta in sampled_cta_ids(264, 2):      # the two CTAs predict(max_ctas=2) ran
        assert np.allclose(got[cta], x[cta] + w[cta])


SCRIPT = r'''
import numpy as np
import warpsim as cp
SOURCE = """%s"""
k = cp.RawModule(code=SOURCE).get_function("mixed")
x = cp.asarray(np.random.default_rng(5).random(8 * 256, dtype=np.float32) + 0.5)
out = cp.zeros(8 * 256, dtype=np.float32)
k((8,), (256,), (out, x, np.int32(33)))
assert np.isfinite(out.get()).all() and (out.get() > 0).all()
''' % SOURCE


def test_profile_prints_the_stalls_by_line(tmp_path, capsys):
    script = tmp_path / "mixed.py"
    script.write_text(SCRIPT)
    assert cli.main(["profile", "--gpu", "h200", "python", str(script)]) == 0
    out = capsys.readouterr().out
    assert "Predicted stalls by source line on h200" in out
    assert f"kernel.cu:{BARRIER_LINE}" in out and "barrier" in out
    assert "__syncthreads();" in out
