#!/usr/bin/env bash
# Build the cubins the H200 loads, here, with nvcc 13.0 (the device's CUDA is 13.0 too):
#   bash validation/timing/build.sh
# Writes microbench.cubin, kernels*.cubin, ptxas_v.txt (registers, shared memory)
# and microbench.sass (nvdisasm, to read what the latency chains are made of).
set -euo pipefail
cd "$(dirname "$0")"
nvcc --version | tail -1 > ptxas_v.txt
for f in microbench microbench2 microbench6 microbench7 kernels kernels2 kernels4 kernels5; do
    nvcc -arch=sm_90 -cubin -Xptxas -v -o $f.cubin $f.cu 2>> ptxas_v.txt
done
# the eighth batch's wgmma, TMA and stmatrix need sm_90a; its wgmma wrappers are generated
python gen_microbench8_wgmma.py
nvcc -arch=sm_90a -cubin -o microbench8.cubin microbench8.cu 2> /dev/null
ND=${NVDISASM:-$(python -c "from warpsim.sass import toolchain as t; print(t.nvdisasm_path())")}
"$ND" -c microbench.cubin > microbench.sass
ls -l *.cubin
