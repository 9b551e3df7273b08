"""`import cupy` under `warpsim run`: warpsim's modules, and clear errors for what warpsim lacks."""

import subprocess
import sys

import numpy as np
import pytest

from warpsim.cli.run import cupy_on_warpsim, run_script


def test_cupy_and_its_submodules_are_warpsims():
    with cupy_on_warpsim():
        import cupy
        import cupy.cuda.memory
        from cupy import testing
        from cupy.cuda import driver, runtime
        from cupy_backends.cuda.libs import nvrtc
        assert cupy.__name__ == "warpsim.api.cupy"
        assert testing.__name__ == "warpsim.api.cupy.testing"      # not numpy.testing
        assert driver.__name__ == "warpsim.api.cupy.cuda.driver"   # not numba's driver
        assert cupy.cuda.memory is sys.modules["cupy.cuda.memory"]
        assert runtime.is_hip is False and runtime.getDeviceCount() == 1
        assert nvrtc.getVersion()[0] >= 12
    assert "cupy" not in sys.modules and "cupy_backends" not in sys.modules


@pytest.mark.parametrize("expression, missing", [
    ("cupy.fft.config", "cupy.fft.config"), ("cupy.random.XORWOW", "cupy.random.XORWOW"),
    ("cupy.linalg.not_a_function", "cupy.linalg.not_a_function"),
    ("cupy.cuda.cufft", "cupy.cuda.cufft"), ("cupy.cuda.driver.cuModuleLoad", "cupy.cuda.driver.cuModuleLoad"),
    ("cupy.testing.assert_warns_deprecated", "cupy.testing.assert_warns_deprecated"),
    ("cupy.cuda.runtime.graphCreate", "cupy.cuda.runtime.graphCreate"),
])
def test_a_name_warpsim_lacks_is_an_attribute_error_naming_it(expression, missing):
    with cupy_on_warpsim():
        import cupy
        with pytest.raises(AttributeError, match=rf"warpsim does not provide {missing.replace('.', '[.]')}"):
            eval(expression, {"cupy": cupy})


def test_a_module_warpsim_lacks_is_a_module_not_found_error_naming_it():
    with cupy_on_warpsim():
        with pytest.raises(ModuleNotFoundError, match="warpsim does not provide cupyx.jit "):
            import cupyx.jit  # noqa: F401
        with pytest.raises(ModuleNotFoundError, match="warpsim does not provide cupy.cuda.nccl"):
            import cupy.cuda.nccl  # noqa: F401


def test_texture_objects_import_and_mipmaps_are_refused_as_cupy_does():
    with cupy_on_warpsim():
        from cupy.cuda import runtime
        from cupy.cuda.texture import ResourceDescriptor, TextureObject  # noqa: F401
        with pytest.raises(NotImplementedError, match="cudaResourceTypeMipmappedArray"):
            ResourceDescriptor(runtime.cudaResourceTypeMipmappedArray)


def test_numpy_functions_still_come_computed_on_the_host():
    with cupy_on_warpsim():
        import cupy
        x = cupy.arange(6, dtype=cupy.float32).reshape(2, 3)
        assert bool(cupy.allclose(x, np.arange(6).reshape(2, 3)))
        f = cupy.copy(x, order="F")
        assert f.strides == np.copy(np.empty((2, 3), np.float32), order="F").strides


def test_errors_are_cupys_classes():
    with cupy_on_warpsim():
        import cupy
        module = cupy.RawModule(code='extern "C" __global__ void k(int *x) { x[0] = 1; }')
        with pytest.raises(cupy.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
            module.get_function("nope")
        with pytest.raises(cupy.cuda.driver.CUDADriverError, match="CUDA_ERROR_FILE_NOT_FOUND"):
            cupy.RawModule(path="/nonexistent/kernel.cubin")
        with pytest.raises(cupy.cuda.compiler.CompileException, match="expected"):
            cupy.RawKernel('extern "C" __global__ void k( { }', "k").compile()


def test_a_child_python_of_a_warpsim_run_program_gets_warpsims_cupy(tmp_path):
    child = tmp_path / "child.py"
    child.write_text("import cupy\nprint(cupy.__name__, int(cupy.arange(4).sum()))\n")
    parent = tmp_path / "parent.py"
    parent.write_text("import subprocess, sys\n"
                      f"out = subprocess.run([sys.executable, {str(child)!r}], capture_output=True, text=True)\n"
                      "print(out.stdout, out.stderr)\n"
                      "assert out.stdout.split() == ['warpsim.api.cupy', '6'], out.stderr\n")
    assert run_script([str(parent)]) == 0
    done = subprocess.run([sys.executable, "-c", "import cupy"], capture_output=True, text=True)
    assert "warpsim" not in done.stdout + done.stderr   # outside the run, PYTHONPATH is as it was


def test_numba_cuda_names_needing_a_driver_say_warpsim_does_not_provide_them():
    pytest.importorskip("numba.cuda")
    import numba.cuda
    from warpsim.cli.run import numba_on_warpsim
    with numba_on_warpsim():
        with pytest.raises(AttributeError, match="warpsim does not provide numba.cuda.open_ipc_array"):
            numba.cuda.open_ipc_array(0, (1,), np.int32)
        with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
            numba.cuda.not_a_name  # noqa: B018
    assert callable(numba.cuda.open_ipc_array) and "__getattr__" not in numba.cuda.__dict__


def test_passing_jitify_warns_as_cupy_does_and_leaving_it_out_does_not():
    import warnings
    import warpsim as cp
    source = 'extern "C" __global__ void k(int *x) { x[0] = 1; }'
    with pytest.warns(DeprecationWarning, match="Avoid passing `jitify=False`"):
        cp.RawModule(code=source, jitify=False)
    with pytest.warns(DeprecationWarning, match="jitify=True is deprecated"):
        cp.RawKernel(source, "k", jitify=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cp.RawKernel(source, "k")


def test_compile_using_nvcc_gives_nvccs_cubin_and_ptx_and_its_errors():
    import warpsim.api.cupy as cupy
    from warpsim.api.cupy.cuda.compiler import NVCCException, compile_using_nvcc
    from warpsim.sass import sass_for_cubin
    source = 'extern "C" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n'
    cubin = compile_using_nvcc(source, arch=90)
    assert cubin[:4] == b"\x7fELF" and "twice" in sass_for_cubin(cubin).kernel_names
    ptx = compile_using_nvcc(source, arch=80, code_type="ptx").decode()
    assert ".target sm_80" in ptx
    x = cupy.asarray(np.arange(4, dtype=np.float32))
    cupy.RawModule(code=None, ptx=ptx).get_function("twice")((1,), (4,), (x,))
    np.testing.assert_array_equal(x.get(), [0, 2, 4, 6])
    with pytest.raises(NVCCException, match="undefined|error"):
        compile_using_nvcc("this is not CUDA", arch=90)
