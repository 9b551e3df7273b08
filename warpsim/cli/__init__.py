"""warpsim's command line: demo, run, profile, occupancy, ptx, check.

Each subcommand lives in its own module with a `main(argv)`; this file only
dispatches, so `warpsim --help` stays fast and one broken feature cannot stop
the others from starting.
"""

from __future__ import annotations

import importlib
import os
import sys

COMMANDS = {
    "demo": ("warpsim.demo", "main", "reproduce the SIMT document's worked examples"),
    "run": ("warpsim.cli.run", "run_script",
            "run an unchanged Numba/CuPy program or CUDA executable: warpsim run python script.py / ./app"),
    "nvcc": ("warpsim.cli.nvcc", "main",
             "build a CUDA C++ program to run on warpsim: warpsim nvcc app.cu -o app && warpsim run ./app"),
    "profile": ("warpsim.cli.profile", "main",
                "profile every launch of a script, ncu-style: warpsim profile [--csv] python script.py"),
    "occupancy": ("warpsim.cli.occupancy", "main",
                  "occupancy calculator: warpsim occupancy --block 256 --regs 32 --smem 4096 --arch sm_90"),
    "ptx": ("warpsim.cli.ptx", "main", "compile CUDA C++ to PTX and check that warpsim supports it"),
    "sass": ("warpsim.cli.sass", "main", "the SASS the GPU runs, with source and PTX lines: warpsim sass kernel.cu"),
    "check": ("warpsim.cli.check", "main",
              "compute-sanitizer's tools on a script: warpsim check [--tool racecheck] python script.py"),
    "compare": ("warpsim.cli.compare", "main", "two versions' predicted times on a GPU, the ratio and why: warpsim compare a.py b.py"),
    "sweep": ("warpsim.cli.sweep", "main",
              "a kernel over a grid of parameters on Dask: warpsim sweep k.cu --name k -p block=64,128"),
    "toolchain": ("warpsim.cli.toolchain", "main",
                  "install or list CUDA toolchains (NVRTC, ptxas, nvcc) by version: warpsim toolchain --install 13.0"),
}


def usage() -> str:
    lines = ["usage: warpsim COMMAND [--scheduling NAME] [ARGS...]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "--scheduling NAME  its (independent thread scheduling, Volta+), stack (the pre-Volta",
              "                   SIMT reconvergence stack), lowest-pc, or a model the program registers",
              "--max-rounds N     scheduling rounds before a launch counts as runaway",
              "--event-time gpu|wall  what a program's CUDA events read: predicted GPU time (default) or",
              "                   the simulation's wall time",
              "--cuda VERSION     compile with that CUDA toolchain (NVRTC, ptxas, nvcc), e.g. 13.0 to match",
              "                   a GPU whose driver is CUDA 13.0 (warpsim toolchain --install 13.0)"]
    return "\n".join(lines)


GLOBAL_OPTIONS = {"--scheduling": "WARPSIM_SCHEDULING", "--max-rounds": "WARPSIM_MAX_ROUNDS",
                  "--event-time": "WARPSIM_EVENT_TIME", "--cuda": "WARPSIM_CUDA"}


class UsageError(Exception):
    """A global option with a value it cannot take (said before anything runs)."""


def _check_option(name: str, value: str) -> None:
    if not value:
        raise UsageError(f"{name} needs a value")
    if name == "--max-rounds" and not (value.isdigit() and int(value) > 0):
        raise UsageError(f"--max-rounds needs a positive whole number of scheduling rounds, "
                         f"not '{value}'")
    if name == "--cuda" and not _names_a_version(value):
        raise UsageError(f"--cuda needs a CUDA version such as 13.0 or 13.0.88, not '{value}'")
    if name == "--event-time" and value not in ("gpu", "wall"):
        raise UsageError(f"--event-time is 'gpu' (CUDA events read predicted GPU time, the default) or "
                         f"'wall' (the simulation's wall time), not '{value}'")


def take_global_options(argv: list) -> list:
    """Apply `--scheduling NAME` (and friends) given before the program to run.

    They become environment settings, so they reach every launch, including
    those of a script run by `warpsim run` or `warpsim profile`.
    """
    out, k = [], 0
    while k < len(argv):
        arg = argv[k]
        if arg in ("python", "python3") or arg.endswith(".py") or _is_executable(arg):
            return out + argv[k:]
        name, _, value = arg.partition("=")
        if name == "--cuda" and out[:1] == ["nvcc"] and \
                not _names_a_version(value or (argv[k + 1] if k + 1 < len(argv) else "")):
            out.append(arg)          # nvcc's own --cuda (compile to C++), with no version after it
        elif name in GLOBAL_OPTIONS:
            if not value:
                k += 1
                value = argv[k] if k < len(argv) else ""
            _check_option(name, value)
            os.environ[GLOBAL_OPTIONS[name]] = value
        else:
            out.append(arg)
        k += 1
    return out


def _names_a_version(value: str) -> bool:
    from ..settings import check_cuda
    try:
        check_cuda(value)
    except ValueError:
        return False
    return True


def _is_executable(arg: str) -> bool:
    """A compiled program (`warpsim run ./app --size 9`): the options after it are its own."""
    return os.sep in arg and os.path.isfile(arg) and os.access(arg, os.X_OK)


def main(argv=None) -> int:
    try:
        argv = take_global_options(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        print(f"warpsim: {exc}\n\n{usage()}", file=sys.stderr)
        return 2
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"warpsim: unknown command '{name}'\n\n{usage()}", file=sys.stderr)
        return 2
    module_name, function, _ = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        print(f"warpsim {name}: not available ({exc})", file=sys.stderr)
        return 2
    result = getattr(module, function)(rest)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
