"""Which CUresult cuLaunchKernel returns for refused launches, on the real GPU (driver API via ctypes)."""
import ctypes, json, os
cuda = ctypes.CDLL("libcuda.so.1")
def check(r, what):
    if r != 0:
        raise RuntimeError(f"{what}: {r}")
def name(r):
    s = ctypes.c_char_p()
    cuda.cuGetErrorName(r, ctypes.byref(s))
    return s.value.decode() if s.value else str(r)
check(cuda.cuInit(0), "init")
dev = ctypes.c_int(); check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "dev")
ctx = ctypes.c_void_p(); check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx")
check(cuda.cuCtxSetCurrent(ctx), "setctx")
def kernel(directive, body="ret;"):
    ptx = f""".version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k() {directive}
{{
    {body}
}}
""".encode() + b"\0"
    mod = ctypes.c_void_p(); check(cuda.cuModuleLoadData(ctypes.byref(mod), ptx), "load")
    fn = ctypes.c_void_p(); check(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"k"), "fn")
    return fn
def launch(fn, grid, block, smem=0):
    r = cuda.cuLaunchKernel(fn, *grid, *block, ctypes.c_uint(smem), None, None, None)
    s = cuda.cuCtxSynchronize()
    return name(r), name(s)
plain = kernel("")
results = {
    "block 2048": launch(plain, (1, 1, 1), (2048, 1, 1)),
    "block z 128": launch(plain, (1, 1, 1), (1, 1, 128)),
    "grid 0": launch(plain, (0, 1, 1), (32, 1, 1)),
    "grid y 65536": launch(plain, (1, 65536, 1), (32, 1, 1)),
    "smem 64K no opt-in": launch(plain, (1, 1, 1), (32, 1, 1), 64 * 1024),
    "smem 300K": launch(plain, (1, 1, 1), (32, 1, 1), 300 * 1024),
    "maxntid 64, block 128": launch(kernel(".maxntid 64, 1, 1"), (1, 1, 1), (128, 1, 1)),
    "reqntid 32, block 64": launch(kernel(".reqntid 32, 1, 1"), (1, 1, 1), (64, 1, 1)),
    "ok": launch(plain, (1, 1, 1), (32, 1, 1)),
}
print(json.dumps(results, indent=1))
os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
open(os.path.join(os.environ.get("OUT", "."), "launch_codes.json"), "w").write(json.dumps(results, indent=1))
