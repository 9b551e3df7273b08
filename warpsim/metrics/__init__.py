"""Profiling: counters gathered while kernels run, named as Nsight Compute names them.

    counters.py   the launch observer (instructions, lanes, branches, sectors, wavefronts)
    names.py      the metric table: ncu name -> unit, how warpsim computes it
    lines.py      per-source-line attribution and the source view
    occupancy.py  the occupancy calculator (`warpsim occupancy`)
    registers.py  registers per thread: ptxas -v, or a liveness estimate from the PTX
    active.py     which profilers are on (`with warpsim.profile():`, warpsim/profiler.py)

Instruction counts are of PTX instructions; validation/metrics_comparison.md
shows how they and every other metric compare with an H200 under ncu.
"""
