"""ptxas/nvdisasm from PyPI: the disk cache, version pinning, errors, and the lazy hook."""

from __future__ import annotations

import pytest

from warpsim.errors import CompileError, WarpsimError
from warpsim.sass import compile_cubin, sass_for_cubin, sass_for_ptx, sass_of, toolchain

pytestmark = pytest.mark.sass

PTX = """
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 p_x)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_x];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.u32 %r2, [%rd2];
    add.s32 %r2, %r2, 1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


def test_second_compilation_comes_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    first = compile_cubin(PTX)
    assert not first.cache_hit and first.data[:4] == b"\x7fELF"

    def no_ptxas(*args):
        raise AssertionError("ptxas ran again")
    monkeypatch.setattr(toolchain, "_run_ptxas", no_ptxas)
    second = compile_cubin(PTX)
    assert second.cache_hit and second.data == first.data
    assert list((tmp_path / "sass" / "cubin").glob("*.cubin"))


def test_the_cache_key_includes_the_arch(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    ptx = PTX.replace(".target sm_90", ".target sm_80")
    assert compile_cubin(ptx, "sm_90").data != compile_cubin(ptx, "sm_80").data
    assert sass_for_cubin(compile_cubin(ptx, "sm_80").data).arch == "sm_80"


def test_ptx_lines_of_a_ptx_module(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    fn = sass_for_ptx(PTX).kernel("add_one")
    lines = PTX.splitlines()
    stg = next(ins for ins in fn.instructions if ins.opcode == "STG")
    assert "st.global.u32" in lines[stg.ptx_line - 1]
    assert stg.source is None                       # no .loc in this PTX: no source line


def test_a_cubin_alone_still_has_its_ptx(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    module = sass_for_cubin(compile_cubin(PTX).data)
    assert module.arch == "sm_90" and module.kernel_names == ["add_one"]
    assert module.ptx_text.splitlines()[1:3] == [".version 8.0", ".target sm_90"]
    stg = next(ins for ins in module.kernel("add_one").instructions if ins.opcode == "STG")
    assert module.ptx_text.splitlines()[stg.ptx_line - 1].startswith("st.global.u32")


def test_bad_ptx_is_a_compile_error_with_ptxas_log(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    with pytest.raises(CompileError) as caught:
        compile_cubin(PTX.replace("add.s32 %r2, %r2, 1;", "add.s32 %r2, %nosuch, 1;"))
    assert "ptxas" in str(caught.value) and "nosuch" in caught.value.log


def test_missing_kernel_names_the_ones_there(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    with pytest.raises(WarpsimError, match=r"no kernel 'nope'.*kernels: add_one"):
        sass_for_ptx(PTX).kernel("nope")


def test_a_version_not_installed_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path))
    with pytest.raises(CompileError, match=r"warpsim sass --install-ptxas 9\.9"):
        sass_for_ptx(PTX, ptxas_version="9.9")


def test_the_installed_version_can_be_named(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    installed = toolchain.tool_version(toolchain.ptxas_path())
    major_minor = ".".join(installed.split(".")[:2])
    assert sass_for_ptx(PTX, ptxas_version=major_minor).ptxas_version == installed


@pytest.mark.skipif(not any(v.startswith("13.0.") for v in toolchain.installed_ptxas_versions()),
                    reason="ptxas 13.0 not installed (warpsim sass --install-ptxas 13.0)")
def test_pinned_older_ptxas_lowers_a_newer_ptx_version(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    module = sass_for_ptx(PTX.replace(".version 8.0", ".version 9.5"), ptxas_version="13.0")
    assert module.ptxas_version.startswith("13.0.")
    assert module.notes == ["PTX .version 9.5 lowered to 9.0 for ptxas " + module.ptxas_version]


@pytest.mark.slow
def test_install_ptxas_from_pypi(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_TOOLS_DIR", str(tmp_path))
    path = toolchain.install_ptxas("13.0")
    assert toolchain.tool_version(path).startswith("13.0.")
    assert toolchain.ptxas_path("13.0") == path


def test_sass_of_a_loaded_module_is_built_once(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSIM_CACHE_DIR", str(tmp_path))
    from warpsim.machine.device import Device
    loaded = Device().load_module(PTX, "add_one.ptx")
    first = sass_of(loaded)
    assert sass_of(loaded) is first and first.kernel_names == ["add_one"]
