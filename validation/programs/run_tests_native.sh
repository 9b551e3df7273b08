#!/usr/bin/env bash
# On the H200 (one `run` call): OUT=... bash validation/programs/run_tests_native.sh [test files]
# The program tests themselves (tests/runtime/test_program_*.py), slow ones included, with their
# programs and kernels built by the machine's nvcc and run natively (WARPSIM_PROGRAMS_NATIVE, see
# tests/runtime/conftest.py): a test that passes here has its expected lines and NumPy references
# confirmed by the hardware. Tests of warpsim's own tools (check, profile) fail here by design.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-out}
mkdir -p "$OUT"
cd "$ROOT"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export LIBRARY_PATH=${LIBRARY_PATH:+$LIBRARY_PATH:}$(dirname "$NVCC")/../lib64/stubs
[ $# -gt 0 ] || set -- tests/runtime/test_program*.py     # (or the tests named)
WARPSIM_PROGRAMS_NATIVE=$NVCC timeout "${BUDGET:-240}" python3 -m pytest -p no:cacheprovider -m '' -n 8 -q \
    --tb=short -rfEs "$@" > "$OUT/program_tests_native.txt" 2>&1
echo "pytest rc=$?"
tail -40 "$OUT/program_tests_native.txt"
