// A program that compiles its kernel at run time with NVRTC (from the kernel's source text, with a
// constant given as -D), loads the PTX through the driver API and launches it, between
// cuProfilerStart and cuProfilerStop (cudaProfiler.h). Usage: runtime_compiled in.bin out.bin
//   in.bin: n floats; out.bin: n floats, scale * x[i] + i
#include <cuda.h>
#include <cudaProfiler.h>
#include <nvrtc.h>
#include <cstdio>
#include <vector>
#include "io.h"
#include "driver_check.h"

static const char *SOURCE = R"(
extern "C" __global__ void scaled(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SCALE * in[i] + (float)i;
}
)";

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size();
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, SOURCE, "scaled.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) return 3;
  const char *options[] = {"--gpu-architecture=compute_90", "-DSCALE=1.5f"};
  nvrtcResult compiled = nvrtcCompileProgram(program, 2, options);
  printf("compiled %s\n", nvrtcGetErrorString(compiled));
  size_t size;
  nvrtcGetPTXSize(program, &size);
  std::vector<char> ptx(size);
  nvrtcGetPTX(program, ptx.data());
  nvrtcDestroyProgram(&program);
  DRV(cuInit(0));
  CUdevice device;
  CUcontext context;
  DRV(cuDeviceGet(&device, 0));
  DRV(cuDevicePrimaryCtxRetain(&context, device));
  DRV(cuCtxSetCurrent(context));
  printf("profiler start %d\n", (int)cuProfilerStart());
  CUmodule module;
  CUfunction function;
  DRV(cuModuleLoadData(&module, ptx.data()));
  DRV(cuModuleGetFunction(&function, module, "scaled"));
  CUdeviceptr in, out;
  DRV(cuMemAlloc(&in, n * sizeof(float)));
  DRV(cuMemAlloc(&out, n * sizeof(float)));
  DRV(cuMemcpyHtoD(in, x.data(), n * sizeof(float)));
  void *args[] = {&out, &in, &n};
  DRV(cuLaunchKernel(function, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  std::vector<float> y(n);
  DRV(cuMemcpyDtoH(y.data(), out, n * sizeof(float)));
  printf("profiler stop %d\n", (int)cuProfilerStop());
  write_file(argv[2], y.data(), n);
  printf("done\n");
  return 0;
}
