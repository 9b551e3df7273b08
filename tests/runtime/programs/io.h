// Reading inputs and writing outputs as raw binary files, so tests compare with NumPy.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T> std::vector<T> read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  std::vector<T> data(bytes / sizeof(T));
  if (fread(data.data(), 1, bytes, f) != (size_t)bytes) exit(2);
  fclose(f);
  return data;
}

template <typename T> void write_file(const char *path, const T *data, size_t count) {
  FILE *f = fopen(path, "wb");
  fwrite(data, sizeof(T), count, f);
  fclose(f);
}

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("%s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); return 1; } } while (0)
