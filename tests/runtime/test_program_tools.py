"""warpsim profile, check and compare on whole CUDA programs (built with `warpsim nvcc`).

The tools' sessions start in the program's process and their results come back to the
CLI's (warpsim.cli.program_tools); these tests read what the CLI prints and what the
Python API collects.
"""

import numpy as np
import pytest

from warpsim.profiler import profile
from warpsim.settings import settings
from warpsim.timing.presets import gpu_preset

pytestmark = pytest.mark.programs


@pytest.fixture
def reduction_input(tmp_path):
    x = np.random.default_rng(3).integers(-100, 100, 3000, dtype=np.int32)
    x.tofile(tmp_path / "x.bin")
    return tmp_path / "x.bin", x


def test_profile_reports_every_kernel_with_source_lines(cli, built, reduction_input, tmp_path):
    path, x = reduction_input
    result = cli("profile", built("reduction"), path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"sum {int(x.sum())}" in result.stdout                 # the program's own output
    assert "block_sum" in result.stdout and "histogram" in result.stdout
    assert "reduction.cu:15" in result.stdout                    # -lineinfo: the tree's loop line
    assert "Program timeline" not in result.stdout               # only with --gpu


def test_profile_csv_of_a_program_has_ncu_rows(cli, built, reduction_input, tmp_path):
    path, _ = reduction_input
    result = cli("profile", "--csv", "--metrics", "launch__grid_size,launch__block_size",
                     built("reduction"), path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith('"0"') or line.startswith('"1"')]
    values = {(row.split('","')[4], row.split('","')[-3]): row.split('","')[-1].strip('"') for row in rows}
    assert values[("_Z9block_sumPKiiPy", "launch__grid_size")] == "6"       # ceil(3000 / 512)
    assert values[("_Z9histogramPKiiPj", "launch__block_size")] == "128"


@pytest.mark.parametrize("selection, profiled", [(["-k", "histogram"], ["histogram"]),
                                                 (["--launch-skip", "1", "--launch-count", "1"], ["histogram"]),
                                                 (["--kernel", "block", "--launch-count", "5"], ["block_sum"])])
def test_profile_takes_the_launches_ncus_options_select(cli, built, reduction_input, tmp_path, selection, profiled):
    path, x = reduction_input
    result = cli("profile", "--csv", "--metrics", "launch__grid_size", *selection, built("reduction"), path,
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"sum {int(x.sum())}" in result.stdout                 # every launch ran
    names = [line.split('","')[4] for line in result.stdout.splitlines() if line.startswith('"') and
             not line.startswith('"ID"')]
    assert [name for name in ("block_sum", "histogram") if any(name in n for n in names)] == profiled


def test_profile_and_check_see_every_host_threads_launches(cli, built, tmp_path):
    """As ncu and compute-sanitizer watch a whole process: launches from the program's own threads too."""
    program = built("host_threads")
    result = cli("profile", "--csv", "--metrics", "launch__grid_size", program, "3", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "threads 3 launches 2 wrong 0: no error" in result.stdout
    assert sum(1 for line in result.stdout.splitlines() if "fill" in line) == 6
    result = cli("check", "--tool", "racecheck", program, "2", "1", "race", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "racy_sum" in result.stdout and "hazard" in result.stdout.lower()


def test_timeline_of_kernels_and_copies_on_the_predicted_clock(cli, built, reduction_input, tmp_path,
                                                               monkeypatch):
    from warpsim.cli.run import run_program
    path, _ = reduction_input
    monkeypatch.chdir(tmp_path)
    with settings(gpu="h200"), profile(level="ptx") as prof:
        outcome = run_program([str(built("reduction")), str(path)])
    assert outcome.status == 0
    assert [launch.kernel_name for launch in prof.launches] == ["_Z9block_sumPKiiPy", "_Z9histogramPKiiPj"]
    assert all(launch.timing is not None for launch in prof.launches)
    kinds = [(e.kind, e.name if e.kind != "kernel" else e.name[:12], e.bytes) for e in prof.timeline]
    assert kinds == [("memset", "memset", 8), ("memset", "memset", 64), ("copy", "HtoD", 12000),
                     ("kernel", "_Z9block_sum", 0), ("kernel", "_Z9histogram", 0),
                     ("copy", "DtoH", 8), ("copy", "DtoH", 64)]
    h200 = gpu_preset("h200")
    upload = prof.timeline[2]
    assert upload.ms == pytest.approx(12000 / (h200.pcie_gbps * 1e9) * 1e3 + h200.copy_overhead_us * 1e-3)
    for before, after in zip(prof.timeline, prof.timeline[1:]):       # one stream: back to back
        assert after.start_ms == pytest.approx(before.start_ms + before.ms)
    kernel = prof.timeline[3]
    assert kernel.ms == pytest.approx(prof.launches[0].timing.time_s * 1e3 + h200.launch_overhead_us * 1e-3,
                                      rel=0.3)      # the runtime's own CTA sample, not the profiler's


def test_profile_with_a_gpu_prints_predicted_times_and_the_timeline(cli, built, reduction_input, tmp_path):
    path, _ = reduction_input
    html = tmp_path / "report.html"
    result = cli("profile", "--gpu", "h200", "--html", html, built("reduction"), path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "predicted on h200" in result.stdout
    assert "Program timeline on h200" in result.stdout
    assert "block_sum(const int *, int, unsigned long long *)" in result.stdout or "block_sum" in result.stdout
    assert "HtoD" in result.stdout and "all copies" in result.stdout
    assert "block_sum" in html.read_text()


def test_check_reports_a_race_and_an_uninitialized_read(cli, built, tmp_path):
    result = cli("check", built("race"), cwd=tmp_path)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "race done cudaSuccess" in out
    assert "racecheck" in out and "shift_left" in out and "race.cu:11" in out
    assert "Uninitialized __global__ memory read" in out and "race.cu:15" in out
    errors = int(out.rsplit("ERROR SUMMARY: ", 1)[1].split()[0])
    assert errors >= 2
    assert out.index("race done") < out.index("ERROR SUMMARY")   # the program's output, then the summary


def test_check_reports_a_failed_program_and_returns_its_status(cli, built, tmp_path):
    result = cli("check", "--tool", "memcheck", built("race"), "fail", cwd=tmp_path)
    assert result.returncode == 3
    assert "Target application returned an error" in result.stdout
    # memcheck finds nothing, and the failure is not counted: compute-sanitizer on the H200 (native.json)
    assert "ERROR SUMMARY: 0 errors" in result.stdout


def test_check_memcheck_on_an_illegal_address(cli, built, tmp_path):
    result = cli("check", "--tool", "memcheck", built("fault"), cwd=tmp_path)
    assert result.returncode == 1
    assert "Invalid __global__ write of size 4 bytes" in result.stdout
    assert "fault.cu:7" in result.stdout and "ERROR SUMMARY: 1 error" in result.stdout
    # as under compute-sanitizer on the H200 (native.json, fault_memcheck): memcheck's launch failure,
    # returned until cudaGetLastError clears it
    for line in ("sync cudaErrorLaunchFailure", "malloc cudaErrorLaunchFailure", "last cudaErrorLaunchFailure",
                 "again cudaSuccess", "string unspecified launch failure"):
        assert line in result.stdout.splitlines(), line


def test_compare_two_programs(cli, built, reduction_input, tmp_path):
    path, _ = reduction_input
    program = built("reduction")
    result = cli("compare", f"{program} {path}", f"{program} {path}", "--labels", "first,second",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "first" in result.stdout and "second" in result.stdout
    assert "predicted time" in result.stdout and "h200" in result.stdout
