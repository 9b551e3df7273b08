"""The sanitizer's test kernels under compute-sanitizer on a GPU and under warpsim check.

    python cases.py prepare                          # here: ptx/ from warpsim's NVRTC
    bash run_on_device.sh                             # on the GPU machine: $OUT/TOOL*.txt
    python cases.py compare DIR                       # here: warpsim check vs the TOOL.txt files

Each case is one launch; on the GPU a marker line precedes it so the
sanitizer's reports can be attributed. Both sides run the same PTX.
"""

import pathlib
import re
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SOURCES = {"hazards": ROOT / "tests" / "sanitizer" / "hazards.cu",
           "scheduling": ROOT / "warpsim" / "demo" / "kernels" / "scheduling.cu"}

# (tool, module, kernel, grid, block, args spec); spec letters: i = int32 input of n, o = int32
# output of n, f = float32 zeros, e = float32 never written, N = the int n.
CASES = [
    ("racecheck", "hazards", "tree_reduce", 2, 128, ("i256", "o2")),
    ("racecheck", "hazards", "missing_barrier", 1, 64, ("i64", "o64")),
    ("racecheck", "hazards", "neighbour_overwrite", 1, 64, ("i64", "o64")),
    ("racecheck", "hazards", "shared_histogram", 1, 64, ("i64", "o8")),
    ("racecheck", "hazards", "byte_array", 1, 64, ("o16",)),
    ("racecheck", "scheduling", "legacy_reduce", 2, 64, ("i128", "o2")),
    ("racecheck", "scheduling", "syncwarp_reduce", 2, 64, ("i128", "o2")),
    ("synccheck", "hazards", "half_barrier", 1, 64, ("o64",)),
    ("synccheck", "hazards", "two_barriers", 1, 64, ("o64",)),
    ("synccheck", "hazards", "early_exit", 2, 64, ("o100", "N100")),
    ("synccheck", "hazards", "shuffle_after_return", 1, 32, ("o32",)),
    ("synccheck", "hazards", "warp_sum", 1, 32, ("i32", "o1")),
    ("initcheck", "hazards", "scale", 1, 64, ("e64", "f64", "N64")),
    ("initcheck", "hazards", "scale", 1, 64, ("f64", "f64", "N64")),
    ("memcheck", "hazards", "fill", 2, 64, ("o100",)),
    ("memcheck", "hazards", "fill", 2, 64, ("o128",)),
]


def ptx_path(module: str) -> pathlib.Path:
    return HERE / "ptx" / f"{module}.ptx"


def prepare():
    sys.path.insert(0, str(ROOT))
    from warpsim.frontends.nvrtc import compile_cuda
    (HERE / "ptx").mkdir(exist_ok=True)
    for name, path in SOURCES.items():
        ptx = compile_cuda(path.read_text(), name=str(path)).ptx
        # the GPU machine's driver predates PTX ISA 9.5; nothing here needs it
        ptx_path(name).write_text(re.sub(r"^\.version .*$", ".version 8.0", ptx, count=1, flags=re.M))


def arguments(xp, spec):
    rng = np.random.default_rng(1)
    args = []
    for item in spec:
        kind, n = item[0], int(item[1:])
        if kind == "i":
            args.append(xp.asarray(rng.integers(-100, 100, n).astype(np.int32)))
        elif kind == "o":
            args.append(xp.zeros(n, dtype=np.int32))
        elif kind == "f":
            args.append(xp.zeros(n, dtype=np.float32))
        elif kind == "e":
            args.append(xp.empty(n, dtype=np.float32))
        else:
            args.append(np.int32(n))
    return tuple(args)


def run_gpu(tool: str, only: int | None = None):
    import cupy as cp
    modules = {name: cp.RawModule(path=str(ptx_path(name))) for name in SOURCES}
    for k, (case_tool, module, kernel, grid, block, spec) in enumerate(CASES):
        if case_tool != tool or (only is not None and k != only):
            continue
        print(f"@@@ case {k} {kernel}", flush=True)
        try:
            modules[module].get_function(kernel)((grid,), (block,), arguments(cp, spec))
            cp.cuda.runtime.deviceSynchronize()
        except Exception as exc:            # a failed launch is part of the answer
            print(f"@@@ launch failed: {type(exc).__name__}", flush=True)
            return


def gpu_errors(text: str) -> dict:
    """case index -> number of error reports compute-sanitizer printed after its marker."""
    counts, current = {}, None
    for line in text.splitlines():
        m = re.match(r"@@@ case (\d+)", line)
        if m:
            current = int(m.group(1))
            counts[current] = 0
        elif current is not None and re.match(r"========= (Error:|Warning:|Invalid|Barrier error|Uninitialized)", line):
            counts[current] += 1
    return counts


def compare(results: pathlib.Path):
    sys.path.insert(0, str(ROOT))
    import io
    import warpsim
    modules = {name: warpsim.RawModule(ptx=ptx_path(name).read_text()) for name in SOURCES}
    print("| case | tool | compute-sanitizer on the H200 (reports) | warpsim check (reports, occurrences) | agree |")
    print("|---|---|---:|---:|---|")
    gpu = {tool: gpu_errors("\n".join(p.read_text() for p in sorted(results.glob(f"{tool}*.txt"))))
           for tool in {c[0] for c in CASES}}
    for k, (tool, module, kernel, grid, block, spec) in enumerate(CASES):
        with warpsim.check(tools=tool, stream=io.StringIO()) as session:
            try:
                modules[module].get_function(kernel)((grid,), (block,), arguments(warpsim, spec))
            except warpsim.WarpsimError:
                pass
        ours = len(session.errors)
        occurrences = sum(e.count for e in session.errors)
        theirs = gpu.get(tool, {}).get(k, "not run")
        label = f"{kernel}({', '.join(spec)})"
        agree = "yes" if theirs != "not run" and bool(theirs) == bool(ours) else "NO"
        print(f"| {label} | {tool} | {theirs} | {ours} ({occurrences}) | {agree} |")


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare()
    elif sys.argv[1] == "cupy":
        run_gpu(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        compare(pathlib.Path(sys.argv[2]))
