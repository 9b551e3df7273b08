#!/bin/sh
# On the device, after `python validation/conformance/generate.py PREFIX...` wrote out/forms.npz here:
# runs those forms on the GPU -> $OUT/gpu.npz, $OUT/errors.json, $OUT/device_log.txt.
# Then here: python validation/conformance/pack.py --append PATH/TO/gpu.npz
export PYTHONUNBUFFERED=1
{ date; nvidia-smi --query-gpu=name,driver_version --format=csv
  python -c "import cupy; r = cupy.cuda.runtime; print('cupy', cupy.__version__, 'runtime', r.runtimeGetVersion(), 'driver', r.driverGetVersion())"
} > "$OUT/device_log.txt" 2>&1
python validation/conformance/run_gpu.py 2>&1 | tee -a "$OUT/device_log.txt"
