"""The runs of tests/runtime/programs/*.cu that the tests make, as data both sides share.

A case is one build and one run: the sources, the nvcc options the tests give, the
program's arguments, the inputs the test writes (same generators, same seeds), the
files the program writes (compared byte for byte), and, for the runs the tests make
under `warpsim check`, the sanitizer tool. run_native.py (on the H200, plain nvcc) and
run_warpsim.py (here, `warpsim nvcc` and `warpsim run`) run the same cases, so this
module imports NumPy only: the GPU machine has no warpsim installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

PROGRAMS = Path(__file__).resolve().parents[2] / "tests" / "runtime" / "programs"


@dataclass(frozen=True)
class Case:
    name: str                                   # the key in the results JSON
    sources: tuple                              # file names under tests/runtime/programs
    args: tuple = ()                            # the program's arguments (run in the case's folder)
    options: tuple = ()                         # nvcc options the tests add
    inputs: Callable | None = None              # inputs(folder): writes the files the test writes
    outputs: dict = field(default_factory=dict)  # file the program writes -> NumPy dtype name
    sanitizer: str | None = None                # compute-sanitizer / warpsim check tool
    build: str | None = None                    # the name of the case whose binary this one reuses
    timeout: float = 120.0                      # seconds for the run under warpsim (the GPU takes far less)
    patch: tuple = ()                           # (old, new) text replacements: a derived copy is built instead


def _vector_add(folder: Path):
    rng = np.random.default_rng(7)
    n = 1000 + int(rng.integers(0, 100))
    rng.standard_normal(n, dtype=np.float32).tofile(folder / "a.bin")
    rng.standard_normal(n, dtype=np.float32).tofile(folder / "b.bin")


def _reduction(folder: Path):
    np.random.default_rng(11).integers(-1000, 1000, 5000, dtype=np.int32).tofile(folder / "x.bin")


def _symbols(folder: Path):
    rng = np.random.default_rng(3)
    rng.integers(-50, 50, 300, dtype=np.int32).tofile(folder / "x.bin")
    rng.random(16, dtype=np.float32).tofile(folder / "t.bin")


def _thrust_sort(folder: Path):
    np.random.default_rng(5).integers(-(1 << 30), 1 << 30, 3000, dtype=np.int32).tofile(folder / "keys.bin")


def _fresh_heap(folder: Path):
    rng = np.random.default_rng(23)
    rng.standard_normal(1000 + int(rng.integers(0, 50)), dtype=np.float32).tofile(folder / "x.bin")


def _sass_only(folder: Path):
    rng = np.random.default_rng(21)
    rng.standard_normal(1000, dtype=np.float32).tofile(folder / "x.bin")
    rng.standard_normal(8, dtype=np.float32).tofile(folder / "w.bin")


def _host_register(folder: Path):
    np.random.default_rng(13).standard_normal(777, dtype=np.float32).tofile(folder / "x.bin")


TEXTURE_WIDTH, TEXTURE_HEIGHT = 37, 11


def _texture(folder: Path):
    """Texel centres, points outside the image and scattered points, as the test draws them."""
    rng = np.random.default_rng(21)
    width, height = TEXTURE_WIDTH, TEXTURE_HEIGHT
    image = rng.standard_normal((height, width), dtype=np.float32)
    ys, xs = np.mgrid[0:height, 0:width]
    centres = np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1)
    outside = np.array([[-3.5, 2.5], [width + 5.0, height + 7.0], [-1.0, -1.0], [2.5, height + 0.25],
                        [width - 0.01, -20.0], [1e6, 3.5]])
    scattered = rng.uniform([-10, -10], [width + 10, height + 10], size=(64, 2))
    image.tofile(folder / "image.bin")
    np.concatenate([centres, outside, scattered]).astype(np.float32).tofile(folder / "coords.bin")


def _grid_sync(folder: Path):
    rng = np.random.default_rng(21)
    n = 900 + int(rng.integers(0, 200))
    rng.standard_normal(n).astype(np.float32).tofile(folder / "x.bin")


def _grid_sync_sass(folder: Path):
    np.ones(100, dtype=np.float32).tofile(folder / "x.bin")


MEMORY3D_SHAPE = (4, 7, 19)              # D, H, W


def _memory3d(folder: Path):
    np.random.default_rng(321).standard_normal(MEMORY3D_SHAPE, dtype=np.float32).tofile(folder / "volume.bin")


def _rdc(folder: Path):
    rng = np.random.default_rng(17)
    n = 250 + int(rng.integers(0, 100))
    (rng.standard_normal(n) * 3).astype(np.float32).tofile(folder / "x.bin")
    rng.random(8).astype(np.float32).tofile(folder / "w.bin")


def _dynamic_parallelism(folder: Path):
    rng = np.random.default_rng(23)
    n = 300 + int(rng.integers(0, 200))
    rng.standard_normal(n).astype(np.float32).tofile(folder / "x.bin")


def _graph_nodes(folder: Path):
    np.random.default_rng(7).standard_normal(1000).astype(np.float32).tofile(folder / "in.bin")


def _stream_queries(folder: Path):
    rng = np.random.default_rng(29)
    rng.standard_normal(700 + int(rng.integers(0, 100)), dtype=np.float32).tofile(folder / "x.bin")


D, H, W = MEMORY3D_SHAPE

CASES = [
    Case("vector_add", ("vector_add.cu",), ("a.bin", "b.bin", "c.bin", "1.5"), inputs=_vector_add,
         outputs={"c.bin": "float32"}),
    Case("fault", ("fault.cu",)),
    Case("reduction", ("reduction.cu",), ("x.bin",), inputs=_reduction),
    Case("symbols", ("symbols.cu",), ("x.bin", "t.bin", "y.bin"), inputs=_symbols, outputs={"y.bin": "float32"}),
    Case("device", ("device.cu",)),
    Case("device_attributes", ("device_attributes.cu",)),
    Case("profiler_range", ("profiler_range.cu",)),
    Case("thrust_sort", ("thrust_sort.cu",), ("keys.bin", "sorted.bin"), inputs=_thrust_sort,
         outputs={"sorted.bin": "int32"}),
    Case("fresh_heap", ("fresh_heap.cu",), ("x.bin", "y.bin"), inputs=_fresh_heap, outputs={"y.bin": "float32"}),
    Case("sass_only", ("sass_only.cu",), ("x.bin", "w.bin"),
         ("--gpu-architecture=compute_90", "--gpu-code=sm_90"), inputs=_sass_only),
    Case("host_register", ("host_register.cu",), ("x.bin", "y.bin"), inputs=_host_register,
         outputs={"y.bin": "float32"}),
    Case("texture", ("texture.cu",), ("image.bin", "coords.bin", "samples.bin", "doubled.bin",
                                      str(TEXTURE_WIDTH), str(TEXTURE_HEIGHT), "resources.bin"),
         inputs=_texture, outputs={"samples.bin": "float32", "doubled.bin": "float32", "resources.bin": "float32"}),
    Case("api", ("api.cu",)),
    Case("fuzz_seed1", ("fuzz.cu",), ("1", "300")),
    Case("fuzz_seed2", ("fuzz.cu",), ("2", "300"), build="fuzz_seed1"),
    Case("grid_sync", ("grid_sync.cu",), ("x.bin", "y.bin", "1.5"), inputs=_grid_sync, outputs={"y.bin": "float32"}),
    Case("grid_sync_sass", ("grid_sync.cu",), ("x.bin", "y.bin", "1.5"), ("-gencode", "arch=compute_90,code=sm_90"),
         inputs=_grid_sync_sass, outputs={"y.bin": "float32"}),
    Case("launch_ex", ("launch_ex.cu",), ("out.bin",), ("-arch=sm_90",), outputs={"out.bin": "int32"}),
    # CUDA 13.0's headers (the H200 machine's nvcc) have no portable-cluster-size-mode launch attribute
    # (PyPI's nvcc here is newer): the same program with that attribute made cudaLaunchAttributeIgnore,
    # built and run on both sides, so the rest of launch_ex is compared too
    Case("launch_ex_cuda130", ("launch_ex.cu",), ("out.bin",), ("-arch=sm_90",), outputs={"out.bin": "int32"},
         patch=(("wide[1].id = cudaLaunchAttributePortableClusterSizeMode;", "wide[1].id = cudaLaunchAttributeIgnore;"),
                ("wide[1].val.portableClusterSizeMode = cudaLaunchPortableClusterModeAllowNonPortable;", ""),
                ("wide[1].val.portableClusterSizeMode = cudaLaunchPortableClusterModeRequirePortable;", ""))),
    Case("limits", ("limits.cu",), ("40", "sums.bin"), outputs={"sums.bin": "int32"}),
    Case("memory3d", ("memory3d.cu",), ("volume.bin", str(W), str(H), str(D), "out.bin"), inputs=_memory3d,
         outputs={"out.bin": "float32"}),
    Case("rdc", ("rdc_a.cu", "rdc_b.cu"), ("x.bin", "w.bin", "y.bin"), ("-rdc=true",), inputs=_rdc,
         outputs={"y.bin": "float32"}),
    Case("dynamic_parallelism", ("dynamic_parallelism.cu",), ("x.bin", "y.bin"), ("-rdc=true", "-lcudadevrt"),
         inputs=_dynamic_parallelism, outputs={"y.bin": "float32"}),
    Case("graph", ("graph.cu",), ("out.bin",), ("-arch=sm_90",), outputs={"out.bin": "float32"}),
    Case("graph_nodes", ("graph_nodes.cu",), ("in.bin", "out.bin", "graph.dot"), ("-arch=sm_90",),
         inputs=_graph_nodes, outputs={"out.bin": "float32"}),
    Case("stream_queries", ("stream_queries.cu",), ("x.bin", "y.bin"), inputs=_stream_queries,
         outputs={"y.bin": "float32"}),
    Case("race", ("race.cu",)),
    Case("host_threads", ("host_threads.cu",), ("3", "2")),
    Case("host_threads_race", ("host_threads.cu",), ("2", "1", "race"), sanitizer="racecheck", build="host_threads"),
    # the runs the tests make under `warpsim check` (test_program_tools.py), here under compute-sanitizer
    Case("race_check_all", ("race.cu",), sanitizer="all", build="race"),
    Case("race_fail_memcheck", ("race.cu",), ("fail",), sanitizer="memcheck", build="race"),
    Case("fault_memcheck", ("fault.cu",), sanitizer="memcheck", build="fault"),
]

# compute-sanitizer runs one tool a process; `warpsim check` runs them all by default
SANITIZER_TOOLS = {"all": ("memcheck", "racecheck", "initcheck", "synccheck")}


def by_name() -> dict:
    return {case.name: case for case in CASES}


def binary_name(case: Case) -> str:
    return case.build or case.name


def source_paths(case: Case, programs: Path = PROGRAMS) -> list:
    return [str(programs / source) for source in case.sources]


def compile_arguments(case: Case, work: Path) -> list:
    """The test's options, the sources, then the libraries (-l after the files that need them, as the test has it).
    A case with a patch builds a copy of its sources under work/src/<case>, with -I to the programs' headers."""
    libraries = [o for o in case.options if o.startswith("-l")]
    sources = source_paths(case)
    if case.patch:
        folder = work / "src" / case.name
        folder.mkdir(parents=True, exist_ok=True)
        sources = [str(folder / source) for source in case.sources]
        for original, copy in zip(source_paths(case), sources):
            text = Path(original).read_text()
            for old, new in case.patch:
                if old in text:
                    text = text.replace(old, new)
            Path(copy).write_text(text)
        missing = [old for old, _ in case.patch if not any(old in Path(s).read_text() for s in source_paths(case))]
        if missing:
            raise ValueError(f"{case.name}: the patch no longer matches {', '.join(case.sources)}: {missing}")
        sources = [f"-I{PROGRAMS}", *sources]
    return [*(o for o in case.options if not o.startswith("-l")), *sources, *libraries]


def every_source_covered(programs: Path = PROGRAMS) -> set:
    """The .cu files under tests/runtime/programs no case builds (empty when the table is complete)."""
    built = {source for case in CASES for source in case.sources}
    return {path.name for path in programs.glob("*.cu")} - built
