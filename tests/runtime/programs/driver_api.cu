// The CUDA driver API beside the runtime in one program (built with -lcuda): a PTX module given as
// text, launched with kernelParams and with `extra`'s parameter buffer; its __device__ counter read
// through cuModuleGetGlobal; memory, streams and events shared with the runtime API; memsets, pointer
// attributes, function attributes, contexts, device queries equal to the runtime's, and the codes of
// bad calls. With a cubin and a fatbinary of twice() (k.cu in the test) it loads and launches those too.
// Usage: driver_api in.bin out.bin [twice.cubin twice.fatbin]
//   in.bin: n floats; out.bin: rows of n floats (a*x + 1 for three values of a, then 2x per image)
#include <cuda.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include "io.h"
#include "driver_check.h"

// axpb(out, in, a, n): out[i] = a * in[i] + 1 (two roundings: mul then add); thread 0 counts launches.
static const char *PTX = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .global .align 4 .u32 launches;

.visible .entry axpb(.param .u64 out_param, .param .u64 in_param, .param .f32 a_param, .param .u32 n_param)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;

    ld.param.u64 %rd1, [out_param];
    ld.param.u64 %rd2, [in_param];
    ld.param.f32 %f1, [a_param];
    ld.param.u32 %r1, [n_param];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ne.s32 %p1, %r5, 0;
    @%p1 bra SKIP;
    atom.global.add.u32 %r6, [launches], 1;
SKIP:
    setp.ge.u32 %p2, %r5, %r1;
    @%p2 bra DONE;
    cvta.to.global.u64 %rd3, %rd2;
    cvta.to.global.u64 %rd4, %rd1;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.f32 %f2, [%rd6];
    mul.rn.f32 %f3, %f1, %f2;
    add.rn.f32 %f4, %f3, 0f3F800000;
    add.s64 %rd7, %rd4, %rd5;
    st.global.f32 [%rd7], %f4;
DONE:
    ret;
}
)";

struct Parameters {            // axpb's parameters as the driver lays them out in `extra`'s buffer
  CUdeviceptr out, in;
  float a;
  unsigned n;
};

static int launch_image(const char *path, CUdeviceptr in, int n, std::vector<float> &rows) {
  CUmodule module;
  CUfunction twice;
  CUdeviceptr out;
  DRV(cuModuleLoad(&module, path));
  DRV(cuModuleGetFunction(&twice, module, "twice"));
  DRV(cuMemAlloc(&out, n * sizeof(float)));
  void *args[] = {&out, &in, &n};
  DRV(cuLaunchKernel(twice, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  std::vector<float> host(n);
  DRV(cuMemcpyDtoH(host.data(), out, n * sizeof(float)));
  rows.insert(rows.end(), host.begin(), host.end());
  DRV(cuMemFree(out));
  DRV(cuModuleUnload(module));
  printf("image %s launched\n", strrchr(path, '.'));
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 5) return 2;
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size();
  size_t bytes = n * sizeof(float);
  std::vector<float> rows;

  CUdeviceptr early;
  SAY("before cuInit", cuMemAlloc(&early, 64));
  DRV(cuInit(0));
  int version = 0, count = 0, major = 0, minor = 0;
  DRV(cuDriverGetVersion(&version));
  DRV(cuDeviceGetCount(&count));
  CUdevice device;
  DRV(cuDeviceGet(&device, 0));
  SAY("device 1", cuDeviceGet(&device, 1));
  char name[256];
  DRV(cuDeviceGetName(name, sizeof name, device));
  DRV(cuDeviceComputeCapability(&major, &minor, device));
  size_t total = 0;
  DRV(cuDeviceTotalMem(&total, device));
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("version %d devices %d cc %d.%d name matches %d memory matches %d\n", version, count, major, minor,
         strcmp(name, prop.name) == 0, total == prop.totalGlobalMem);

  int same = 0, asked = 0;
  for (int attribute = 1; attribute < 150; attribute++) {
    if (attribute == CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH) continue;   // the driver's alone
    int driver_value = -7, runtime_value = -7;
    CUresult driver_code = cuDeviceGetAttribute(&driver_value, (CUdevice_attribute)attribute, device);
    cudaError_t runtime_code = cudaDeviceGetAttribute(&runtime_value, (cudaDeviceAttr)attribute, 0);
    asked++;
    same += (int)driver_code == (int)runtime_code && driver_value == runtime_value;
  }
  cudaGetLastError();
  printf("attributes equal %d of %d\n", same, asked);
  int multi_device = -7;
  SAY("deprecated multi-device attribute",
      cuDeviceGetAttribute(&multi_device, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, device));

  CUcontext context, current, primary;
  DRV(cuCtxCreate(&context, nullptr, 0, device));
  CUctxCreateParams no_parameters = {};
  CUcontext zeroed;
  SAY("create with zeroed parameters", cuCtxCreate(&zeroed, &no_parameters, 0, device));
  cuCtxPopCurrent(&zeroed);
  DRV(cuCtxGetCurrent(&current));
  DRV(cuDevicePrimaryCtxRetain(&primary, device));
  printf("one context %d\n", context == current && context == primary);

  CUmodule module;
  CUfunction axpb, missing;
  DRV(cuModuleLoadData(&module, PTX));
  DRV(cuModuleGetFunction(&axpb, module, "axpb"));
  SAY("missing function", cuModuleGetFunction(&missing, module, "nothing_here"));
  int threads = 0, ptx = 0;
  DRV(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, axpb));
  DRV(cuFuncGetAttribute(&ptx, CU_FUNC_ATTRIBUTE_PTX_VERSION, axpb));
  printf("function threads %d ptx %d\n", threads, ptx);
  int min_grid = 0, best_block = 0, resident = 0, runtime_resident = 0;
  DRV(cuOccupancyMaxPotentialBlockSize(&min_grid, &best_block, axpb, nullptr, 0, 0));
  DRV(cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, axpb, best_block, 0));
  cudaDeviceProp occupancy_prop;
  cudaGetDeviceProperties(&occupancy_prop, 0);
  printf("potential block %d grid is %d blocks an SM %d, block of 96 with 48 KB: ", best_block,
         min_grid / occupancy_prop.multiProcessorCount, resident);
  DRV(cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, axpb, 96, 48 << 10));
  printf("%d\n", resident);
  SAY("occupancy of a bogus function", cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, nullptr, 32, 0));

  // kernelParams: the input from cuMemAlloc, the output from cudaMalloc (one heap for both APIs)
  CUdeviceptr in;
  float *out_runtime;
  DRV(cuMemAlloc(&in, bytes));
  if (cudaMalloc(&out_runtime, bytes) != cudaSuccess) return 1;
  DRV(cuMemcpyHtoD(in, x.data(), bytes));
  CUdeviceptr out = (CUdeviceptr)out_runtime;
  float a = 2.5f;
  void *args[] = {&out, &in, &a, &n};
  unsigned blocks = (n + 127) / 128;
  DRV(cuLaunchKernel(axpb, blocks, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  std::vector<float> host(n);
  DRV(cuMemcpyDtoH(host.data(), out, bytes));
  rows.insert(rows.end(), host.begin(), host.end());

  // extra: the parameters in one buffer; the output from cuMemAlloc, read back with cudaMemcpy
  CUdeviceptr out2;
  DRV(cuMemAlloc(&out2, bytes));
  DRV(cuMemsetD32(out2, 0, n));
  Parameters packed = {out2, in, -0.75f, (unsigned)n};
  size_t packed_size = sizeof packed;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   CU_LAUNCH_PARAM_END};
  DRV(cuLaunchKernel(axpb, blocks, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  if (cudaMemcpy(host.data(), (void *)out2, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  rows.insert(rows.end(), host.begin(), host.end());
  size_t short_size = 8;
  void *short_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &short_size,
                         CU_LAUNCH_PARAM_END};
  SAY("short buffer", cuLaunchKernel(axpb, blocks, 1, 1, 128, 1, 1, 0, nullptr, nullptr, short_extra));
  SAY("both forms", cuLaunchKernel(axpb, blocks, 1, 1, 128, 1, 1, 0, nullptr, args, extra));

  // a stream and events of the driver, a launch and an async copy on it; the runtime sees the same events
  CUstream stream;
  CUevent start, stop;
  DRV(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  DRV(cuEventCreate(&start, CU_EVENT_DEFAULT));
  DRV(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  DRV(cuEventRecord(start, stream));
  a = 4.0f;
  DRV(cuLaunchKernel(axpb, blocks, 1, 1, 128, 1, 1, 0, stream, args, nullptr));
  DRV(cuEventRecord(stop, stream));
  DRV(cuMemcpyDtoHAsync(host.data(), out, bytes, stream));
  DRV(cuStreamSynchronize(stream));
  DRV(cuEventSynchronize(stop));
  rows.insert(rows.end(), host.begin(), host.end());
  float ms = -1, runtime_ms = -1;
  DRV(cuEventElapsedTime(&ms, start, stop));
  cudaEventElapsedTime(&runtime_ms, (cudaEvent_t)start, (cudaEvent_t)stop);
  printf("elapsed positive %d, the runtime reads the same %d, runtime query %s\n", ms > 0, ms == runtime_ms,
         cudaGetErrorName(cudaEventQuery((cudaEvent_t)stop)));
  DRV(cuEventDestroy(start));
  DRV(cuEventDestroy(stop));
  DRV(cuStreamDestroy(stream));

  CUdeviceptr counter;
  size_t counter_size = 0;
  unsigned launched = 0;
  DRV(cuModuleGetGlobal(&counter, &counter_size, module, "launches"));
  DRV(cuMemcpyDtoH(&launched, counter, sizeof launched));
  SAY("missing global", cuModuleGetGlobal(&counter, &counter_size, module, "nothing_here"));
  printf("launches %u size %zu\n", launched, counter_size);

  // memsets of 8, 16 and 32 bits
  CUdeviceptr words;
  DRV(cuMemAlloc(&words, 64));
  DRV(cuMemsetD8(words, 0x11, 64));
  DRV(cuMemsetD16(words + 8, 0xBEEF, 4));
  DRV(cuMemsetD32(words + 16, 0xDEADBEEF, 2));
  unsigned char seen[24];
  DRV(cuMemcpyDtoH(seen, words, sizeof seen));
  printf("memsets %02x %02x%02x %02x%02x%02x%02x %02x\n", seen[0], seen[9], seen[8], seen[19], seen[18], seen[17],
         seen[16], seen[23]);
  SAY("misaligned memset", cuMemsetD32(words + 2, 1, 2));

  // pointer attributes, pinned memory
  void *pinned;
  DRV(cuMemAllocHost(&pinned, 256));
  unsigned type_device = 0, type_host = 0;
  CUdeviceptr start_address = 0;
  int on_stack = 0;
  DRV(cuPointerGetAttribute(&type_device, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, in + 4));
  DRV(cuPointerGetAttribute(&type_host, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)pinned));
  DRV(cuPointerGetAttribute(&start_address, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, in + 4));
  printf("memory types device %u host %u range start matches %d\n", type_device, type_host, start_address == in);
  SAY("stack pointer", cuPointerGetAttribute(&type_host, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)&on_stack));
  DRV(cuMemFreeHost(pinned));
  size_t free_bytes = 0, total_bytes = 0;
  DRV(cuMemGetInfo(&free_bytes, &total_bytes));
  printf("memory info total matches %d free below %d\n", total_bytes == total, free_bytes < total_bytes);

  // bad calls and their codes; none of them is the runtime's last error
  CUdeviceptr none;
  const char *text = nullptr;
  SAY("empty allocation", cuMemAlloc(&none, 0));
  SAY("free NULL", cuMemFree(0));
  SAY("bogus function", cuLaunchKernel((CUfunction)&on_stack, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
  SAY("huge block", cuLaunchKernel(axpb, 1, 1, 1, 4096, 1, 1, 0, nullptr, args, nullptr));
  CUmodule bad;
  SAY("not an image", cuModuleLoadData(&bad, "just some words"));
  SAY("broken PTX", cuModuleLoadData(&bad, ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k( {"));
  SAY("no file", cuModuleLoad(&bad, "/nonexistent/module.cubin"));
  DRV(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
  printf("string of CUDA_ERROR_INVALID_VALUE: %s\n", text);
  CUresult unnamed = cuGetErrorName((CUresult)12345, &text);
  printf("name of 12345: %s, pointer %s\n", name_of(unnamed), text ? "set" : "NULL");
  printf("runtime last error %s\n", cudaGetErrorName(cudaGetLastError()));

  // the thread's context stack: cuCtxCreate's context alone (the runtime worked in it; it made no other current)
  CUcontext popped, under;
  DRV(cuCtxPopCurrent(&popped));
  DRV(cuCtxGetCurrent(&current));
  printf("popped the context %d, none current %d\n", popped == context, current == nullptr);
  SAY("allocation without a context", cuMemAlloc(&none, 64));
  SAY("pop from an empty stack", cuCtxPopCurrent(&under));
  DRV(cuCtxPushCurrent(popped));
  SAY("allocation with it back", cuMemAlloc(&none, 64));

  if (argc == 5 && (launch_image(argv[3], in, n, rows) || launch_image(argv[4], in, n, rows))) return 1;

  DRV(cuModuleUnload(module));
  SAY("launch after unload", cuLaunchKernel(axpb, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  DRV(cuCtxDestroy(context));
  write_file(argv[2], rows.data(), rows.size());
  printf("driver api done\n");
  return 0;
}
