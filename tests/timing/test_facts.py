"""The model's per-kernel tables, kept between launches (timing/facts.py): a launch after others of the
same kernel, on another grid or another GPU, is predicted as a fresh process predicts it."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import warpsim as ws
from warpsim.sass import sass_of
from warpsim.timing import gpu_preset
from warpsim.timing.facts import function_facts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(ws.__file__)))

# a loop with barriers (the stretches between them), shared memory, FP32 and MUFU (whose holds and latency
# differ by GPU)
SCRIPT = r'''
import dataclasses, json, sys
import numpy as np
import warpsim as ws
SOURCE = """
extern "C" __global__ void smooth(float* out, const float* in, int n) {
    __shared__ float tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < 4; ++k) {
        tile[threadIdx.x] = in[(i + 97 * k) % n];
        __syncthreads();
        acc += __expf(tile[(threadIdx.x + 1) % blockDim.x]);
        __syncthreads();
    }
    out[i] = acc;
}
"""
kernel = ws.RawModule(code=SOURCE).get_function("smooth")
n = 128 * 64
x = ws.asarray(np.linspace(0, 1, n, dtype=np.float32))
out = ws.zeros(n, dtype=np.float32)
timings = []
for launch in sys.argv[1:]:          # gpu:CTAs, one profiled launch each, in order
    gpu, ctas = launch.split(":")
    with ws.settings(gpu=gpu), ws.profile() as prof:
        kernel((int(ctas),), (128,), (out, x, np.int32(n)))
    timings.append(repr(dataclasses.asdict(prof.launches[-1].timing)))
print(json.dumps(timings))
'''
LAUNCHES = ("h200:64", "a100:64", "h200:8")     # (the A100 holds FP32 and MUFU otherwise: its own tables)


def _predicted(*launches) -> list:
    """Each launch's Timing, every float in full, from one new process that makes them in order."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *launches], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_launches_after_others_are_predicted_as_in_a_fresh_process():
    one_after_another = _predicted(*LAUNCHES, LAUNCHES[0])
    fresh = [_predicted(launch)[0] for launch in LAUNCHES]
    assert one_after_another[:3] == fresh
    assert one_after_another[3] == fresh[0]
    assert len(set(fresh)) == 3          # (the grids and GPUs do give other predictions)


@pytest.fixture(scope="module")
def function():
    source = r'''extern "C" __global__ void f(float* out, const float* in) {
        __shared__ float s[64];
        s[threadIdx.x] = __expf(in[threadIdx.x]);
        __syncthreads();
        out[threadIdx.x] = s[63 - threadIdx.x];
    }'''
    kernel = ws.RawModule(code=source).get_function("f")
    return sass_of(kernel.loaded_module).kernel(kernel.kernel_name)


def test_facts_are_kept_per_function_and_per_preset_and_read_only(function):
    facts = function_facts(function)
    assert function_facts(function) is facts
    h200, a100 = gpu_preset("h200"), gpu_preset("a100")
    assert facts.on(h200) is facts.on(h200) and facts.on(a100) is not facts.on(h200)
    assert facts.in_stretch is not None and len(facts.before_barrier) == len(function.instructions)
    with pytest.raises(ValueError):           # shared by every launch: nobody may write them
        facts.on(h200).hold[0] = 0.0
    with pytest.raises(ValueError):
        facts.bank_reads[0, 0] = 1.0
    fp32 = np.flatnonzero(facts.is_fp32)
    assert len(fp32) and (facts.on(a100).hold_tensor[fp32] == 2 * facts.on(h200).hold_tensor[fp32]).all()


def test_a_bsync_joining_a_jump_table_is_told_from_one_after_compares():
    """Set 2's switch compiles to BRX jump tables inside its BSSY region; the fifty-ninth batch's four-way
    switch to compares and branches. Only the first's BSYNC joins a jump table (groups arriving there
    cost 40 cycles, elsewhere 6)."""
    from pathlib import Path

    from warpsim.timing.facts import joins_jump_table
    here = Path(__file__).parents[2] / "validation" / "timing"
    for cubin, kernel, expected in (("kernels2.cubin", "t2_switch_in_loop", True),
                                    ("microbench59.cubin", "mb59_switch", False)):
        f = ws.RawModule(path=str(here / cubin)).get_function(kernel)
        function = sass_of(f.loaded_module).kernel(f.kernel_name)
        joins = joins_jump_table(function)
        bsyncs = [i for i, ins in enumerate(function.instructions) if ins.opcode == "BSYNC"]
        assert bsyncs and any(joins[i] for i in bsyncs) == expected
        assert not any(j for i, j in enumerate(joins) if i not in bsyncs)
