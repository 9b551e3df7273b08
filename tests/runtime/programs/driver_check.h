// What the driver-API programs share: DRV(call) returns 1 from main on a failed call, naming it and its
// CUresult; SAY(what, call) prints what a call returned, by name.
#pragma once
#include <cuda.h>
#include <cstdio>

#define DRV(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = nullptr; \
  cuGetErrorName(r_, &n_); printf("%s failed: %s\n", #call, n_ ? n_ : "?"); return 1; } } while (0)

static const char *name_of(CUresult code) {
  const char *name = nullptr;
  return cuGetErrorName(code, &name) == CUDA_SUCCESS ? name : "(no name)";
}
#define SAY(what, call) printf("%s %s\n", what, name_of(call))
