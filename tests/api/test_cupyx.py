"""cupyx under `warpsim run`: cupyx.scipy.special and .ndimage (SciPy on the host), and what is
left out (cupyx.jit, cupyx.scipy without SciPy) failing with a message that says why."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warpsim as cp
from warpsim import cli
from warpsim.cli.run import cupy_on_warpsim

scipy_special = pytest.importorskip("scipy.special")
scipy_ndimage = pytest.importorskip("scipy.ndimage")

from warpsim.api.cupyx.scipy import ndimage, special  # noqa: E402  (needs SciPy)

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "gammaln", "digamma", "expit", "logit",
                                  "i0", "i1", "j0", "j1", "ndtr", "log_ndtr", "entr"])
def test_special_functions_match_scipy_with_cupys_float32_rule(name):
    x = RNG.uniform(0.05, 0.95, 64)
    for dtype, expected in ((np.float32, np.float32), (np.float64, np.float64),
                            (np.float16, np.float32)):
        got = getattr(special, name)(cp.asarray(x.astype(dtype)))
        assert isinstance(got, cp.ndarray) and got.dtype == expected, (name, dtype)
        reference = getattr(scipy_special, name)(x.astype(dtype).astype(np.float64))
        np.testing.assert_allclose(got.get(), reference, rtol=1e-5 if expected == np.float32 else 1e-12)
    integers = cp.asarray(RNG.integers(1, 5, 8).astype(np.int8))
    assert special.gamma(integers).dtype == np.float32                 # CuPy's 'f->f' loop first
    assert special.gamma(cp.asarray(np.arange(1, 4))).dtype == np.float64


def test_softmax_family_and_two_argument_functions():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    for name in ("softmax", "log_softmax"):
        got = getattr(special, name)(cp.asarray(x), axis=1)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got.get(), getattr(scipy_special, name)(x, axis=1), rtol=1e-5)
    np.testing.assert_allclose(special.logsumexp(cp.asarray(x), axis=0).get(),
                               scipy_special.logsumexp(x, axis=0), rtol=1e-5)
    y = RNG.uniform(0.5, 3, (4, 6))
    np.testing.assert_allclose(special.xlogy(cp.asarray(y), cp.asarray(y + 1)).get(),
                               scipy_special.xlogy(y, y + 1))
    out = cp.zeros((4, 6))
    assert special.erf(cp.asarray(y), out=out) is out
    np.testing.assert_allclose(out.get(), scipy_special.erf(y))


def test_ndimage_filters_interpolation_and_label_match_scipy():
    image = RNG.random((12, 10)).astype(np.float32)
    device = cp.asarray(image)
    weights = RNG.random((3, 3)).astype(np.float32)
    cases = [("convolve", (device, cp.asarray(weights)), (image, weights)),
             ("correlate", (device, cp.asarray(weights)), (image, weights)),
             ("gaussian_filter", (device, 1.5), (image, 1.5)),
             ("uniform_filter", (device, 3), (image, 3)),
             ("median_filter", (device, 3), (image, 3)),
             ("zoom", (device, 1.5), (image, 1.5)),
             ("shift", (device, (1.5, -2.25)), (image, (1.5, -2.25))),
             ("rotate", (device, 30), (image, 30))]
    for name, device_args, host_args in cases:
        got = getattr(ndimage, name)(*device_args)
        reference = getattr(scipy_ndimage, name)(*host_args)
        assert isinstance(got, cp.ndarray) and got.dtype == reference.dtype, name
        np.testing.assert_allclose(got.get(), reference, rtol=1e-5, atol=1e-6, err_msg=name)
    blobs = image > 0.6
    labels, count = ndimage.label(cp.asarray(blobs))
    ref_labels, ref_count = scipy_ndimage.label(blobs)
    assert count == ref_count > 1 and labels.dtype == ref_labels.dtype
    np.testing.assert_array_equal(labels.get(), ref_labels)
    output = cp.zeros((12, 10), dtype=np.float64)
    assert ndimage.sobel(device, output=output) is output
    np.testing.assert_allclose(output.get(), scipy_ndimage.sobel(image, output=np.float64), rtol=1e-6)


SCRIPT = textwrap.dedent("""
    import numpy as np
    import cupy
    import cupyx
    import cupyx.scipy.special
    from cupyx.scipy import ndimage
    import scipy.special

    rng = np.random.default_rng(5)
    x = rng.uniform(0.1, 0.9, 100).astype(np.float32)
    got = cupyx.scipy.special.erf(cupy.asarray(x))
    assert type(got).__module__ == "warpsim.api.arrays" and got.dtype == np.float32
    assert np.allclose(got.get(), scipy.special.erf(x), rtol=1e-6)
    assert ndimage.uniform_filter(cupy.asarray(x), 5).shape == (100,)

    @cupy.fuse()
    def fused(a, b):
        return cupy.sum(cupy.exp(a) * b, axis=0)

    m = rng.standard_normal((3, 4)).astype(np.float32)
    assert np.allclose(fused(cupy.asarray(m), cupy.asarray(m)).get(), (np.exp(m) * m).sum(0), rtol=1e-5)
    a = rng.standard_normal((5, 5)) + 5 * np.eye(5)
    assert np.allclose(cupy.linalg.inv(cupy.asarray(a)).get(), np.linalg.inv(a))
    assert cupy.fft.fft(cupy.asarray(x)).dtype == np.complex64
    cupy.random.seed(1)
    assert cupy.random.rand(3, dtype=np.float32).dtype == np.float32
    try:
        import cupyx.jit
    except ModuleNotFoundError as error:
        print("jit:", error)
    print("cupyx ok")
""")


def test_a_cupyx_program_runs_under_warpsim_run(tmp_path, capsys):
    script = tmp_path / "uses_cupyx.py"
    script.write_text(SCRIPT)
    assert cli.main(["run", "python", str(script)]) == 0
    out = capsys.readouterr().out
    assert "cupyx ok" in out
    assert "warpsim does not provide cupyx.jit (CuPy's Python-to-CUDA compiler" in out


def test_cupyx_names_warpsim_leaves_out_say_so():
    with cupy_on_warpsim():
        import cupyx
        with pytest.raises(AttributeError, match="warpsim does not provide cupyx.jit .*cupy.fuse"):
            cupyx.jit  # noqa: B018
        with pytest.raises(ModuleNotFoundError, match="warpsim does not provide cupyx.scipy.sparse"):
            import cupyx.scipy.sparse  # noqa: F401
        with pytest.raises(AttributeError, match="warpsim does not provide cupyx.scipy.special.nope"):
            cupyx.scipy.special.nope  # noqa: B018
        with cupyx.errstate(linalg="raise"):
            assert cupyx.geterr()["linalg"] == "raise"
        assert cupyx.geterr()["linalg"] == "ignore"


BLOCK_SCIPY = textwrap.dedent("""
    import sys
    class NoScipy:
        def find_spec(self, name, path=None, target=None):
            if name == "scipy" or name.startswith("scipy."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, NoScipy())
    from warpsim import cli
    sys.exit(cli.main(["run", "python", sys.argv[1]]))
""")


def test_without_scipy_cupyx_scipy_names_the_extra_and_the_rest_runs(tmp_path):
    script = tmp_path / "needs_scipy.py"
    script.write_text("import cupy\nprint('sum', int(cupy.arange(5).sum()))\n"
                      "try:\n    import cupyx.scipy.special\n"
                      "except ImportError as error:\n    print('error:', error)\n")
    done = subprocess.run([sys.executable, "-c", BLOCK_SCIPY, str(script)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "sum 10" in done.stdout
    assert "scipy.special is not installed (it is needed for cupyx.scipy.special, computed on " \
           "the host with SciPy): pip install warpsim[scipy]" in done.stdout
