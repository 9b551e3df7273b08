"""Which launches a profile takes (Nsight Compute's -k, -s and -c): the others run unprofiled,
with the same results."""

import numpy as np
import pytest

import warpsim as cp
from warpsim.sass.alone import SassAloneRun
from warpsim.sass.replay import SassReplay

pytestmark = pytest.mark.nvrtc

SOURCE = r"""
namespace ops {
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
}
extern "C" __global__ void shift(float* x, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += b;
}
"""


@pytest.fixture(scope="module")
def kernels():
    module = cp.RawModule(code=SOURCE, name_expressions=["ops::scale"])
    return module.get_function("ops::scale"), module.get_function("shift")


def run_program(kernels, launches: int, **selection):
    """`launches` pairs of scale and shift over one array: the profile, and the array against NumPy's."""
    scale, shift = kernels
    x0 = np.random.default_rng(7).random(300, dtype=np.float32)
    x = cp.asarray(x0)
    expected = x0.copy()
    with cp.profile(**selection) as prof:
        for k in range(launches):
            scale((3,), (128,), (x, np.float32(1.5), np.int32(300)))
            shift((3,), (128,), (x, np.float32(k), np.int32(300)))
            expected = expected * np.float32(1.5) + np.float32(k)
    np.testing.assert_array_equal(x.get(), expected)        # unprofiled launches ran as well
    return prof


@pytest.mark.parametrize("name", ["scale", "ops::scale", "regex:^ops::sc", "regex:sca"])
def test_kernel_name_as_ncu_matches_it(kernels, name):
    prof = run_program(kernels, 3, kernel_name=name)
    assert len(prof) == 3 and all("scale" in launch.kernel_name for launch in prof)


def test_an_exact_name_does_not_match_a_part():
    from warpsim.profiler import LaunchSelection
    assert not LaunchSelection(kernel_name="sca").matches("_ZN3ops5scaleEPffi")
    assert LaunchSelection(kernel_name="scale").matches("_ZN3ops5scaleEPffi")
    assert LaunchSelection(contains="sca").matches("_ZN3ops5scaleEPffi")


def test_skip_and_count_take_the_matching_launches_in_order(kernels):
    prof = run_program(kernels, 5, kernel_name="shift", launch_skip=1, launch_count=2)
    assert len(prof) == 2 and all("shift" in launch.kernel_name for launch in prof)
    assert [launch.id for launch in prof] == [0, 1]
    every = run_program(kernels, 5, launch_skip=3, launch_count=4)
    assert ["shift" in launch.kernel_name for launch in every] == [True, False, True, False]


@pytest.mark.parametrize("verify", [False, True])
def test_unselected_launches_get_no_sass_run(kernels, monkeypatch, verify):
    runs = []
    for kind in (SassAloneRun, SassReplay):
        def counting(self, launch, *args, original=kind.__init__, **kwargs):
            runs.append(launch.kernel)
            original(self, launch, *args, **kwargs)
        monkeypatch.setattr(kind, "__init__", counting)
    with cp.settings(sass_verify=verify):
        prof = run_program(kernels, 4, kernel_name="scale", launch_count=1)
    assert len(prof) == 1 and prof[0].execution == ("ptx+sass" if verify else "sass")
    assert len(runs) == 1


def test_bad_selections_are_refused():
    with pytest.raises(ValueError, match="negative"):
        cp.profile(launch_count=-1)
    with pytest.raises(ValueError, match="kernel name filter"):
        cp.profile(kernel_name="regex:(")
