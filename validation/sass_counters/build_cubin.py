"""Build the cubin the H200 runs, here: warpsim's NVRTC PTX -> ptxas 13.0 (the driver's CUDA).

    python validation/sass_counters/build_cubin.py

Writes kernels.ptx, kernels.cubin (loaded on the device with CuPy
RawModule(path=...)), ptxas_v.txt (ptxas -v: registers, shared memory) and
sass.txt (nvdisasm -c -g -gp, through `warpsim sass`), all beside this file.
Needs ptxas 13.0 in warpsim's tool cache (`warpsim sass --install-ptxas 13.0`).
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PTXAS_VERSION = "13.0"


def main() -> int:
    from warpsim.frontends.nvrtc import compile_cuda
    from warpsim.sass import toolchain

    with open(os.path.join(HERE, "kernels.cu")) as handle:
        source = handle.read()
    ptx = compile_cuda(source, options=("-arch=sm_90",), name="kernels.cu").ptx
    with open(os.path.join(HERE, "kernels.ptx"), "w") as handle:
        handle.write(ptx)
    result = toolchain.compile_cubin(ptx, "sm_90", PTXAS_VERSION)
    with open(os.path.join(HERE, "kernels.cubin"), "wb") as handle:
        handle.write(result.data)
    # ptxas -v for the resource report (same PTX, same ptxas, same flags as the cubin)
    ptx_path = os.path.join(HERE, "kernels.ptx")
    text = ptx
    for note in result.notes:
        print("note:", note)
    if result.notes:  # the .version line was lowered: do the same for the -v run
        import re
        known = re.search(r"lowered to (\S+)", result.notes[0]).group(1)
        text = re.sub(r"^(\s*\.version\s+)\S+", r"\g<1>" + known, ptx, count=1, flags=re.M)
    tmp = "/tmp/sc_kernels_v.ptx"
    with open(tmp, "w") as handle:
        handle.write(text)
    done = subprocess.run([result.ptxas, "-arch=sm_90", "-lineinfo", "-v", "-o", "/tmp/sc_kernels_v.cubin", tmp],
                          capture_output=True, text=True)
    with open(os.path.join(HERE, "ptxas_v.txt"), "w") as handle:
        handle.write(f"ptxas {result.ptxas_version} -arch=sm_90 -lineinfo -v\n")
        handle.write((done.stdout + done.stderr).replace(tmp, "kernels.ptx"))
    with open("/tmp/sc_kernels_v.cubin", "rb") as a, open(os.path.join(HERE, "kernels.cubin"), "rb") as b:
        print("cubin identical to the -v build:", a.read() == b.read())
    listing = subprocess.run([sys.executable, "-m", "warpsim", "sass", os.path.join(HERE, "kernels.cubin")],
                             capture_output=True, text=True)
    with open(os.path.join(HERE, "sass.txt"), "w") as handle:
        handle.write(listing.stdout + listing.stderr)
    print(f"ptxas {result.ptxas_version}: {len(result.data)} bytes of cubin; sass.txt {listing.stdout.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
