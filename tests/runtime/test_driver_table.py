"""libcuda.so.1 comes from the one driver table as libcudart.so.13 comes from the runtime's: every row
exported under the name cuda.h gives it, forwarded to the Python function of that name, every other name
the header declares or maps to a NotSupported stub; one rule picks a symbol for a base name, a CUDA
version and the per-thread flag; CUresult codes are cuda.h's."""

import re

from warpsim.runtime import driver, driver_table
from warpsim.runtime.calls import IMPLEMENTED
from warpsim.runtime.errors import ERRORS
from warpsim.runtime.handlers import driver_handler, handler
from warpsim.runtime.native import cuda_include_dir, driver_header_names, driver_names, driver_source


def test_every_driver_row_has_a_python_function_and_its_cuda_h_name():
    names = driver_names()
    assert not set(driver_table.BY_NAME) - set(driver.DRIVER_IMPLEMENTED)
    assert not set(driver_table.BY_NAME) - set(names.exported())
    assert names.mapped["cuMemAlloc"] == "cuMemAlloc_v2" and names.mapped["cuCtxCreate"] == "cuCtxCreate_v4"
    assert names.per_thread["cuMemcpyHtoD"] == "cuMemcpyHtoD_v2_ptds" and names.cuda_version >= 13000
    assert driver_handler("cuMemAlloc_v2") is driver.DRIVER_IMPLEMENTED["cuMemAlloc_v2"]
    assert driver_handler("cuMemcpyHtoD_v2_ptds") is driver.DRIVER_IMPLEMENTED["cuMemcpyHtoD_v2"]
    assert driver_handler("cuLaunchKernel_ptsz").__name__ == "on_thread_stream"     # NULL: the thread's stream
    assert driver_handler("cuMipmappedArrayCreate").func is driver.not_supported
    # the runtime's entry points of a per-thread build default to the per-thread symbols: their own functions
    assert handler("cudaGetDriverEntryPoint_ptsz") is IMPLEMENTED["cudaGetDriverEntryPoint_ptsz"]


def test_stubs_cover_the_table_and_the_header_unversioned():
    names = driver_header_names()
    assert {"cuMemAlloc", "cuMemAlloc_v2", "cuLaunchKernel_ptsz", "cuGraphLaunch"} <= set(names)
    source, script = driver_source(names)
    assert script.startswith("{\n  global:\n") and "local: *;" in script      # no version node, as NVIDIA's
    for name in set(names) | set(driver_table.BY_NAME):
        assert f"    {name};\n" in script and f" {name}(" in source
    assert "WS_EXPORT int cuMemAlloc_v2(unsigned long long * dptr, size_t bytesize) {" in source
    assert ("WS_EXPORT int cuMemcpyHtoD_v2_ptds(unsigned long long dstDevice, const void * srcHost, "
            "size_t ByteCount) {") in source
    assert "WS_EXPORT int cuMipmappedArrayCreate(void) {" in source           # not supported: no parameters needed
    assert 'GetAttrString(module, "driver_handler")' in source and "the CUDA driver could not" in source


def test_entry_points_pick_the_abi_version_of_the_cuda_version_asked():
    names = driver_names()
    found, not_found, too_old = driver_table.FOUND, driver_table.NOT_FOUND, driver_table.VERSION_NOT_SUFFICIENT
    cases = {("cuMemAlloc", 13000, False): ("cuMemAlloc_v2", found),
             ("cuMemAlloc", 3000, False): ("cuMemAlloc", found),       # the 32-bit ABI: a NotSupported stub
             ("cuCtxCreate", 12000, False): ("cuCtxCreate_v3", found),
             ("cuTensorMapEncodeTiled", 12000, False): ("cuTensorMapEncodeTiled", found),
             ("cuTensorMapEncodeTiled", 11080, False): (None, too_old),
             ("cuMemcpyHtoD", 13000, True): ("cuMemcpyHtoD_v2_ptds", found),
             ("cuLaunchKernel", 13000, True): ("cuLaunchKernel_ptsz", found),
             ("cuInit", 13000, True): ("cuInit", found),                # no per-thread form: the plain one
             ("cuNoSuchFunction", 13000, False): (None, not_found)}
    for (symbol, version, per_thread), expected in cases.items():
        assert driver_table.entry_point(names, symbol, version, per_thread) == expected, symbol


def test_result_codes_are_cuda_h_and_every_runtime_code_has_one():
    text = (cuda_include_dir() / "cuda.h").read_text(errors="replace")
    defined = {name: int(number) for name, number in re.findall(r"\b(CUDA_(?:SUCCESS|ERROR_\w+))\s*=\s*(\d+)", text)}
    for name, value in vars(driver).items():
        if re.fullmatch(r"CUDA_(SUCCESS|ERROR_\w+)", name):
            assert defined[name] == value, name
    assert driver.result_names()[801] == "CUDA_ERROR_NOT_SUPPORTED"
    assert {driver.as_result(code) for code in ERRORS} <= set(defined.values())
    assert driver.result_string(201) == "invalid device context" and driver.result_string(12345) is None
