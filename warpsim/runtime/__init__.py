"""The CUDA runtime API for whole programs: warpsim's own libcudart.so.13.

A CUDA C++ program built with `-cudart shared` (`warpsim nvcc` does it) and
started by `warpsim run ./app` loads warpsim's libcudart.so.13 (native.py builds
it from table.py) instead of NVIDIA's; its calls reach calls.py in the same
process, which runs the kernels of the program's fatbinary on the simulator
(context.py). docs/programs.md describes the design and what is supported.
"""
