// Thrust (CUB's radix sort, reductions) on random keys read from a file.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include "io.h"

int main(int argc, char **argv) {
  std::vector<int> keys = read_file<int>(argv[1]);
  thrust::device_vector<int> d(keys.begin(), keys.end());
  thrust::sort(d.begin(), d.end());
  long long total = thrust::reduce(d.begin(), d.end(), 0LL);
  thrust::host_vector<int> sorted = d;
  write_file(argv[2], sorted.data(), sorted.size());
  printf("total %lld\n", total);
  return 0;
}
