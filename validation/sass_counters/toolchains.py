"""Which toolchain's code the H200's counters are of: warpsim's counters under three toolchains.

    python validation/sass_counters/toolchains.py [NCU_RAW_CSV]   # writes toolchains.md beside this file

Needs CUDA 13.0 in warpsim's tool cache (`warpsim toolchain --install 13.0`). Three ways
to make the code of the same kernels:

* `recorded`: kernels.ptx (warpsim's NVRTC at the time, 13.5) with ptxas 13.0, i.e.
  kernels.cubin, the code the H200 ran for expected.json (loaded there with
  RawModule(path=kernels.cubin));
* `default`: kernels.cu through the installed NVRTC and ptxas (13.5 here);
* `cuda 13.0`: kernels.cu with `warpsim.settings(cuda="13.0")`: NVRTC 13.0, its
  headers, ptxas 13.0, as CuPy and the driver on the H200 (CUDA 13.0) compile source.

Part 1 runs the 78 launches of cases.py under each and compares every counter of
expected.json (compare.py's rules). Part 2 runs the launches of validation/cases.py,
which the H200 compiled from source with CuPy's NVRTC 13.0
(validation/ncu_metrics.csv), under `default` and `cuda 13.0`. Part 3 compares the
SASS of validation/kernels.cu, instruction by instruction (branch targets as labels),
with validation/device/sass.txt, which nvcc 13.0 made on the H200. Part 4, once there
is a run of CuPy compiling kernels.cu itself on the H200 (`SC_FROM_SOURCE=1 OUT=$OUT
bash run_on_device.sh`, its ncu_raw.csv unpacked to device_source/), compares its
counters with `default` and `cuda 13.0` compiling as CuPy does
(RawModule(code=kernels.cu, options=("-arch=sm_90",))).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

os.environ["WARPSIM_PTXAS_VERSION"] = ""        # each configuration below says its own

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATION = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import json  # noqa: E402

import warpsim  # noqa: E402
from compare import CASES, run_case, warpsim_values  # noqa: E402
from warpsim.frontends.nvrtc import compile_cuda  # noqa: E402
from warpsim.sass import sass_for_cubin, sass_for_ptx, sass_of  # noqa: E402
from warpsim.toolchains import find_toolchain  # noqa: E402

CONFIGURATIONS = (("recorded", "", "13.0"), ("default", "", ""), ("cuda 13.0", "13.0", ""))


SOURCE_RUN = os.path.join(HERE, "device_source", "ncu_raw.csv")


def module_for(name: str, as_cupy: bool = False):
    if name == "recorded":
        return warpsim.RawModule(path=os.path.join(HERE, "kernels.ptx"))
    with open(os.path.join(HERE, "kernels.cu")) as handle:
        source = handle.read()
    if as_cupy:             # what CuPy's RawModule(code=...) passes NVRTC, as warpsim models it
        return warpsim.RawModule(code=source, options=("-arch=sm_90",))
    return warpsim.RawModule(ptx=compile_cuda(source, options=("-arch=sm_90",), name="kernels.cu").ptx)


def part1(expected, configurations=CONFIGURATIONS, as_cupy: bool = False) -> tuple:
    """{configuration: (equal pairs, pairs, {kernel: [differing counters]}, same SASS as kernels.cubin)}."""
    with open(os.path.join(HERE, "kernels.cubin"), "rb") as handle:
        gpu = sass_for_cubin(handle.read())
    results, toolchain_names = {}, {}
    for name, cuda, ptxas in configurations:
        os.environ["WARPSIM_PTXAS_VERSION"] = ptxas
        with warpsim.settings(cuda=cuda):
            module = module_for(name, as_cupy)
            equal = total = 0
            misses, launches = {}, {}
            for case, want in zip(CASES, expected["cases"]):
                launch, per_pc, requests, ok, message = run_case(module, case)
                assert ok, f"{name} {case.label}: {message}"
                got = warpsim_values(launch, per_pc, requests, want["counters"])
                for counter, value in want["counters"].items():
                    if counter in got:
                        total += 1
                        if got[counter] == value:
                            equal += 1
                        else:
                            misses.setdefault(case.label, []).append((counter, value, got[counter]))
                launches[case.label] = launch
            sass = sass_of(module.get_function(CASES[0].kernel).loaded_module)
            same = [k for k in gpu.kernel_names
                    if [i.text for i in gpu.kernel(k).instructions] == [i.text for i in sass.kernel(k).instructions]]
            toolchain_names[name] = launch.toolchain
        results[name] = (equal, total, misses, same, launches)
    os.environ["WARPSIM_PTXAS_VERSION"] = ""
    return results, toolchain_names, gpu.kernel_names


def part2() -> dict:
    """{configuration: (metric rows equal to ncu, rows)} of validation/compare_metrics.py."""
    out = {}
    for name, cuda, _ in CONFIGURATIONS[1:]:
        env = {**os.environ, "WARPSIM_CUDA": cuda, "WARPSIM_PTXAS_VERSION": ""}
        done = subprocess.run([sys.executable, os.path.join(VALIDATION, "compare_metrics.py")], env=env,
                              capture_output=True, text=True, check=True)
        equal = total = 0
        for line in done.stdout.splitlines():
            m = re.match(r"\| `[^`]+` \| (\d+) \| (\d+) \| (\d+) \|$", line)
            if m:
                equal, total = equal + int(m.group(1)), total + int(m.group(3))
        out[name] = (equal, total)
    return out


def _normalized(text: str) -> str:
    text = " ".join(text.rstrip(" ;").split())
    if not re.match(r"(@\S+ )?(BRA|BSSY|CALL)", text):
        return text
    return re.sub(r"`\(\.L_x_\d+\)|\b0x[0-9a-f]+$", "TARGET", text)      # targets: labels here, offsets there


def device_sass() -> dict:
    """kernel -> normalized instructions of validation/device/sass.txt (cuobjdump -sass of nvcc 13.0's cubin)."""
    kernels, current = {}, None
    with open(os.path.join(VALIDATION, "device", "sass.txt")) as handle:
        for line in handle:
            m = re.search(r"Function : (\S+)", line)
            if m:
                current = kernels.setdefault(m.group(1), [])
                continue
            m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
            if m and current is not None:
                current.append(_normalized(m.group(1)))
    return kernels


def part3() -> dict:
    """{configuration: kernels whose SASS equals the H200's nvcc 13.0 SASS}; plus nvcc 13.0 here."""
    device = device_sass()
    with open(os.path.join(VALIDATION, "kernels.cu")) as handle:
        source = handle.read()
    out = {}
    for name, cuda, _ in CONFIGURATIONS[1:]:
        with warpsim.settings(cuda=cuda):
            sass = sass_for_ptx(compile_cuda(source, options=("-arch=sm_90",), name="kernels.cu").ptx)
        out[name] = [k for k, ins in device.items()
                     if [_normalized(i.text) for i in sass.kernel(k).instructions] == ins]
    nvcc = find_toolchain("13.0") / "bin" / "nvcc"
    cubin = "/tmp/warpsim_toolchains_kernels.cubin"
    subprocess.run([str(nvcc), "-arch=sm_90", "-cubin", "-o", cubin, os.path.join(VALIDATION, "kernels.cu")],
                   check=True)
    with open(cubin, "rb") as handle:
        sass = sass_for_cubin(handle.read())
    out["nvcc 13.0 (here)"] = [k for k, ins in device.items()
                               if [_normalized(i.text) for i in sass.kernel(k).instructions] == ins]
    return out, len(device)


def counter_tables(results, toolchains, kernels, names) -> list:
    lines = ["| toolchain | made by | (kernel, counter) pairs equal to ncu | kernels whose SASS is kernels.cubin's |",
             "|---|---|---:|---:|"]
    for name, (equal, total, misses, same, _) in results.items():
        lines.append(f"| {name} | {toolchains[name]} | {equal} of {total} | {len(same)} of {len(kernels)} |")
    lines += ["", "Every (launch, counter) that differs from ncu's under at least one toolchain:", "",
              "| case | counter | GPU | " + " | ".join(names) + " |", "|---|---|---:|" + "---:|" * len(names)]
    labels = sorted({label for _, _, misses, _, _ in results.values() for label in misses})
    for label in labels:
        counters = {}
        for name, (_, _, misses, _, _) in results.items():
            for counter, gpu, got in misses.get(label, []):
                counters.setdefault(counter, {"GPU": gpu})[name] = got
        for counter, values in sorted(counters.items()):
            row = [values.get(n, values["GPU"]) for n in names]
            lines.append(f"| {label} | `{counter}` | {values['GPU']:g} | " + " | ".join(f"{v:g}" for v in row) + " |")
    return lines


def render(p1, kernels, p2, p3, n_device, p4, seconds) -> str:
    results, toolchains = p1
    lines = ["# The toolchain behind the H200's counters", "",
             "Generated by `python validation/sass_counters/toolchains.py` (do not edit by hand); "
             f"{seconds:.0f} s.", "",
             "## 1. sass_counters (78 launches; the H200 ran kernels.cubin: NVRTC 13.5 PTX, ptxas 13.0)", ""]
    lines += counter_tables(results, toolchains, kernels, ("recorded", "default", "cuda 13.0"))
    lines += ["", "## 2. validation/cases.py (23 launches the H200 compiled from source: CuPy 14.2, NVRTC 13.0)", "",
              "| toolchain | metric rows equal to ncu |", "|---|---:|"]
    lines += [f"| {name} | {equal} of {total} |" for name, (equal, total) in p2.items()]
    lines += ["", "## 3. SASS of validation/kernels.cu against the H200's (nvcc 13.0, validation/device/sass.txt)", "",
              "| made by | kernels with the same SASS, instruction for instruction |", "|---|---:|"]
    lines += [f"| {name} | {len(same)} of {n_device} |" for name, same in p3.items()]
    lines += ["", "## 4. sass_counters compiled from source by CuPy on the H200 (device_source/)", ""]
    if p4 is None:
        lines.append("Not run yet: `SC_FROM_SOURCE=1 OUT=$OUT bash validation/sass_counters/run_on_device.sh` on the "
                     "H200, then its sass_counters/ncu_raw.csv to device_source/ncu_raw.csv.")
    else:
        lines += ["(the \"kernels.cubin\" column compares with the recorded cubin, not with CuPy's code)", ""]
        lines += counter_tables(*p4, kernels, ("default", "cuda 13.0"))
    return "\n".join(lines) + "\n"


def part4(path: str):
    """Part 1's comparison against a run of CuPy compiling kernels.cu (None when there is none)."""
    if not os.path.exists(path):
        return None
    from make_expected import expected_json, load
    results, toolchains, _ = part1(expected_json(load(path)), CONFIGURATIONS[1:], as_cupy=True)
    return results, toolchains


def main() -> int:
    source_run = sys.argv[1] if len(sys.argv) > 1 else SOURCE_RUN
    start = time.perf_counter()
    with open(os.path.join(HERE, "expected.json")) as handle:
        expected = json.load(handle)
    p1 = part1(expected)
    results, toolchains, kernels = p1
    p2 = part2()
    p3, n_device = part3()
    p4 = part4(source_run)
    report = render((results, toolchains), kernels, p2, p3, n_device, p4, time.perf_counter() - start)
    print(report)
    with open(os.path.join(HERE, "toolchains.md"), "w") as handle:
        handle.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
