"""The C stubs come from the one runtime table: every row exported under libcudart's version node,
forwarded to the Python function of its name, every other header function a NotSupported stub."""

from warpsim.runtime.calls import IMPLEMENTED, not_supported
from warpsim.runtime.handlers import handler
from warpsim.runtime.native import VERSION_NODE, runtime_header_names, runtime_source
from warpsim.runtime.table import FUNCTIONS

NOT_YET = {"__cudaRegisterManagedVar"}      # docs/programs.md, "Not yet"


def test_every_table_row_has_a_python_function():
    missing = {f.name for f in FUNCTIONS} - set(IMPLEMENTED) - NOT_YET
    assert not missing
    assert handler("cudaMalloc") is IMPLEMENTED["cudaMalloc"]
    assert handler("cudaImportExternalMemory").func is not_supported


def test_stubs_and_version_script_cover_the_table_and_the_header():
    names = runtime_header_names()
    assert "cudaGraphCreate" in names and "cudaMemcpy2D" in names and len(names) > 300
    source, script = runtime_source(names)
    assert script.startswith(VERSION_NODE + " {") and "local: *;" in script
    for name in {f.name for f in FUNCTIONS} | set(names):
        assert f"    {name};\n" in script
        assert f" {name}(" in source
    assert "WS_EXPORT int cudaMalloc(void ** devPtr, size_t size) {" in source
    assert "WS_EXPORT void ** __cudaRegisterFatBinary(void * fatCubin) {" in source
    assert "WS_EXPORT int cudaImportExternalMemory(void) {" in source    # not supported: no parameters needed


def test_per_thread_stream_names_get_the_plain_calls_stubs():
    names = runtime_header_names()
    assert {"cudaMemcpy_ptds", "cudaMemcpyAsync_ptsz", "cudaLaunchKernel_ptsz", "cudaGraphUpload_ptsz"} <= set(names)
    source, script = runtime_source(names)
    assert "    cudaMemcpyAsync_ptsz;\n" in script
    assert ("WS_EXPORT int cudaMemcpyAsync_ptsz(void * dst, const void * src, size_t count, int kind, "
            "void * stream) {") in source
    assert handler("cudaMemcpy_ptds") is IMPLEMENTED["cudaMemcpy"]
    assert getattr(handler("cudaGraphUpload_ptsz"), "func", None) is not not_supported   # on the thread's stream
    assert handler("cudaStreamBeginRecaptureToGraph_ptsz").func is not_supported   # its base is not in the table
