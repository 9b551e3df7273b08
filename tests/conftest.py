"""What every test gets: the WARPSIM_* environment as it was before the test, and profiles
verified by the PTX run (WARPSIM_SASS_VERIFY=1 unless the environment says otherwise); and
`sass_only_cubin`, for tests of cubins that carry SASS alone.

Commands like `warpsim --scheduling stack ...` set environment variables so
scripts they run see them; a test that calls them must not leave them for
the tests after it.
"""

import os
import subprocess

import pytest

# Profiling at SASS level runs the PTX beside the SASS and compares their memory in every test
# (the differential check); WARPSIM_SASS_VERIFY=0 in the environment runs the tests without it.
os.environ.setdefault("WARPSIM_SASS_VERIFY", "1")


@pytest.fixture(autouse=True)
def warpsim_environment_restored():
    before = {k: v for k, v in os.environ.items() if k.startswith("WARPSIM_")}
    yield
    for key in [k for k in os.environ if k.startswith("WARPSIM_")]:
        if key not in before:
            del os.environ[key]
    os.environ.update(before)


@pytest.fixture(scope="session")
def sass_only_cubin(tmp_path_factory):
    """build(source) -> the path of `nvcc -cubin -arch=sm_90` of it (PyPI's nvcc; no -lineinfo, so
    no PTX is stored in the cubin); the test is skipped where no nvcc is installed."""
    from warpsim.cli.nvcc import nvcc_path

    def build(source: str):
        try:
            nvcc = str(nvcc_path())
        except Exception as exc:          # no nvcc from PyPI: nothing to build the cubin with
            pytest.skip(f"nvcc not available: {exc}")
        folder = tmp_path_factory.mktemp("sass_only")
        (folder / "k.cu").write_text(source)
        subprocess.run([nvcc, "-cubin", "-arch=sm_90", str(folder / "k.cu"), "-o", str(folder / "k.cubin")],
                       check=True, capture_output=True)
        return folder / "k.cubin"
    return build
