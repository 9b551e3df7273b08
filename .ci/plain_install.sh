#!/usr/bin/env bash
# CI job: the plain install is what a new user gets. A fresh venv, the project
# installed as README's first command does (`pip install .`, no extras: no
# pytest, hypothesis or triton), then every CLI command on small inputs, each
# checked for its exit status and the figures it must print. The test extra
# that the suite installs would hide a missing optional import; this cannot.
#
# Usage: .ci/plain_install.sh   (from anywhere; about 2 minutes on 2 cores)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/warpsim-plain.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out
mkdir -p "$out" "$work/inputs"

fail() { echo "plain install: FAILED: $*" >&2; exit 1; }

# step NAME STATUS COMMAND...: run COMMAND in the inputs folder, keep its output in
# $out/NAME.txt, and fail unless it exited with STATUS.
declare -A command_of
step() {
    local name=$1 want=$2 status=0
    shift 2
    command_of[$name]="$*"
    echo "+$(printf ' %q' "$@")"
    (cd "$work/inputs" && "$@") >"$out/$name.txt" 2>&1 || status=$?
    if [ "$status" != "$want" ]; then
        cat "$out/$name.txt" >&2
        fail "'$*' exited $status, expected $want"
    fi
}

# expect NAME REGEX...: the output of step NAME has a line matching each REGEX.
expect() {
    local name=$1 pattern
    shift
    for pattern in "$@"; do
        if ! grep -qE -- "$pattern" "$out/$name.txt"; then
            cat "$out/$name.txt" >&2
            fail "'${command_of[$name]}' printed nothing matching '$pattern'"
        fi
    done
}

# ---------------------------------------------------------------- install
python3 -m venv "$work/venv"
. "$work/venv/bin/activate"
python -m pip install -q --upgrade pip
pip install -q "$repo"                          # README: pip install . && warpsim demo
export WARPSIM_CACHE_DIR=$work/cache            # nothing compiled by an earlier run
export COLUMNS=200                              # rich wraps nothing the checks look for

for extra_only in pytest hypothesis triton; do
    if python -c "import $extra_only" 2>/dev/null; then
        fail "the plain install has $extra_only: this job would not test an install without extras"
    fi
done

# Every module of the installed package imports, but for those whose whole job is an
# optional package (the demo's @triton.jit kernels, cupyx.scipy): they must say which
# extra installs it (warpsim.errors.MissingDependency).
step import_all 0 python - <<'EOF'
import importlib, pathlib
import warpsim
from warpsim.errors import MissingDependency
package = pathlib.Path(warpsim.__file__).parent
failed = 0
for path in sorted(package.rglob("*.py")):
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__main__":
        continue
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        importlib.import_module(name)
    except MissingDependency as error:
        print(f"{name}: needs an extra: {error}")
    except Exception as error:
        failed += 1
        print(f"{name}: FAILED: {type(error).__name__}: {error}")
print(f"{failed} modules failed to import")
raise SystemExit(failed != 0)
EOF
expect import_all '^0 modules failed to import$' \
    '^warpsim\.demo\.triton_kernels: needs an extra: .*pip install warpsim\[triton\]$'

# ---------------------------------------------------------------- inputs
cd "$work/inputs"
cat > saxpy.cu <<'EOF'
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
EOF
cat > strided.cu <<'EOF'
#ifndef STRIDE
#define STRIDE 1
#endif
extern "C" __global__ void gather(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(i * STRIDE) % n];
}
EOF
# A CuPy program, unchanged: `import cupy` and a RawKernel. argv[1] is the load stride.
cat > scale.py <<'EOF'
import sys
import numpy as np
import cupy

stride = int(sys.argv[1]) if len(sys.argv) > 1 else 1
kernel = cupy.RawKernel(r'''
extern "C" __global__ void scale(const float* x, float* y, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[(i * stride) % n];
}
''', "scale")
n = 4096
x = cupy.asarray(np.arange(n, dtype=np.float32))
y = cupy.zeros(n, dtype=cupy.float32)
kernel((n // 128,), (128,), (x, y, np.int32(n), np.int32(stride)))
expected = 2 * ((np.arange(n) * stride) % n).astype(np.float32)
assert np.array_equal(cupy.asnumpy(y), expected), "wrong result"
print(f"scale ok: sum {float(y.sum()):.1f}")
EOF
# A Numba program, unchanged: `from numba import cuda`.
cat > warp_sum.py <<'EOF'
import numpy as np
from numba import cuda

@cuda.jit
def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0.0
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)

x = np.ones(1000, dtype=np.float32)
out = np.zeros(1, dtype=np.float32)
warp_sum[4, 256](x, out)
print(f"warp_sum {out[0]:.1f}")
EOF
# Writes one element past the end of y: memcheck's error, and the launch fails.
cat > overrun.py <<'EOF'
import numpy as np
import cupy

kernel = cupy.RawKernel(r'''
extern "C" __global__ void shift(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i + 1] = x[i];
}
''', "shift")
n = 1024
x = cupy.arange(n, dtype=cupy.float32)
y = cupy.zeros(n, dtype=cupy.float32)
kernel((n // 128,), (128,), (x, y, np.int32(n)))
EOF
# Fails after a clean launch: `warpsim check` must not call the run clean.
cat > crash.py <<'EOF'
import cupy
x = cupy.zeros(4)
raise RuntimeError("the program failed after its launches")
EOF

# ---------------------------------------------------------------- the commands
step help 0 warpsim --help
expect help '^  demo ' '^  run ' '^  profile ' '^  check ' '^  sass ' '^  compare ' '^  sweep ' '^  occupancy '

step demo_list 0 warpsim demo --list
expect demo_list '^  divergence ' '^  coalescing ' '^  profile '

step demo_partial_warp 0 warpsim demo partial_warp
expect demo_partial_warp 'live lanes per warp +│ +32 32 32 4' 'predicted on H200'

step run_cupy 0 warpsim run python scale.py
expect run_cupy '^scale ok: sum 16773120\.0$'

step run_numba 0 warpsim run python warp_sum.py
expect run_numba '^warp_sum 1000\.0$'

step profile 0 warpsim profile python scale.py
expect profile '^scale ok' 'scale +grid \(32, 1, 1\) x block \(128, 1, 1\)' \
    'global sectors per request +load 4\.00, store 4\.00' \
    'launch__thread_count +│ thread +│ +4,096' 'theoretical occupancy +100\.0%'

step profile_strided 0 warpsim profile python scale.py 32
expect profile_strided 'global sectors per request +load 32\.00, store 4\.00'

step profile_gpu 0 warpsim profile --gpu h200 python scale.py
expect profile_gpu 'predicted on h200: [0-9.]+ us' 'gpu__time_duration\.sum +│ ns +│ +[0-9,.]+' \
    'Predicted stalls by source line on h200'

step profile_html 0 warpsim profile --html report.html python scale.py
[ -s "$work/inputs/report.html" ] || fail "warpsim profile --html report.html wrote no report.html"
grep -q '<html' "$work/inputs/report.html" || fail "report.html is not an HTML page"
grep -q 'scale' "$work/inputs/report.html" || fail "report.html does not name the kernel 'scale'"

step check_clean 0 warpsim check python scale.py
expect check_clean '^========= COMPUTE-SANITIZER' '^========= ERROR SUMMARY: 0 errors$'

step check_overrun 1 warpsim check python overrun.py
expect check_overrun '^========= Invalid __global__ write of size 4 bytes$' \
    'by thread \(127,0,0\) in block \(7,0,0\)' '0 bytes past the end of the 4096-byte allocation'
expect check_overrun '^========= Target application returned an error$' '^========= ERROR SUMMARY: 1 error$'

step check_crash 1 warpsim check python crash.py
expect check_crash '^========= Target application returned an error$' \
    'exit status 1: RuntimeError: the program failed after its launches' '^========= ERROR SUMMARY: 0 errors$'

step sass 0 warpsim sass saxpy.cu
expect sass '^// kernel saxpy: [0-9]+ instructions' 'FFMA' 'saxpy\.cu:3 +if \(i < n\)'

step ptx 0 warpsim ptx saxpy.cu
expect ptx 'saxpy'

step compare_cu 0 warpsim compare strided.cu --grid 64 --block 128 --n 8192 \
    --a-define STRIDE=1 --b-define STRIDE=32
expect compare_cu '^predicted time +[0-9.]+ us +[0-9.]+ us' 'STRIDE=1 is [0-9.]+x faster than .*STRIDE=32 on h200'

step compare_py 0 warpsim compare "scale.py 1" "scale.py 32" --gpu h200
expect compare_py '^predicted time +[0-9.]+ us +[0-9.]+ us' 'faster than .* on h200'

step sweep 0 warpsim sweep saxpy.cu --name saxpy -p block=64,128 --csv sweep.csv --plot sweep.png --no-progress
expect sweep '^ *64 +64 +True' '^ *128 +128 +True'
[ "$(wc -l < sweep.csv)" = 3 ] || fail "sweep.csv has not a header and two rows: $(cat sweep.csv)"
[ -s sweep.png ] || fail "warpsim sweep --plot sweep.png wrote no sweep.png"

step occupancy 0 warpsim occupancy --block 256 --regs 32 --smem 4096 --arch sm_90
expect occupancy '8 blocks = 64 of 64 warps per SM: 100\.0% theoretical occupancy'

step occupancy_regs 0 warpsim occupancy --block 256 --regs 128 --arch sm_90
expect occupancy_regs '2 blocks = 16 of 64 warps per SM: 25\.0% theoretical occupancy, limited by .*registers'

echo "plain install: every command ran ($(ls "$out" | wc -l) steps)"
