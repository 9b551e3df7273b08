// cudaLaunchKernelEx with launch attributes: thread-block clusters given at launch (distributed
// shared memory through cooperative_groups), the cooperative attribute, completion events, hints,
// and the codes of refused attributes and cluster shapes.
// Usage: launch_ex out.bin   (out.bin: each launch's values, one int32 per thread, in order)
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include "io.h"

namespace cg = cooperative_groups;
#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

// Each block publishes a value in its shared memory; every thread reads the next rank's.
__global__ void neighbours(int *out) {
  __shared__ int value;
  cg::cluster_group cluster = cg::this_cluster();
  int block = blockIdx.x + gridDim.x * blockIdx.y;
  if (threadIdx.x == 0) value = block * 100 + 7;
  cluster.sync();
  unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  int seen = *cluster.map_shared_rank(&value, (rank + 1) % size);
  cluster.sync();                                       // the neighbour's value stays until all read it
  out[block * blockDim.x + threadIdx.x] = seen * 1000 + rank * 10 + size;
}

__global__ void __cluster_dims__(2, 1, 1) declared(int *out) { out[threadIdx.x] = 1; }

__global__ void plain(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x + 1; }

static cudaError_t launch(dim3 grid, dim3 block, cudaLaunchAttribute *attrs, int count,
                          void (*kernel)(int *), int *out) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.attrs = attrs;
  config.numAttrs = count;
  cudaError_t e = cudaLaunchKernelEx(&config, kernel, out);
  cudaGetLastError();
  return e;
}

static cudaLaunchAttribute cluster(unsigned x, unsigned y, unsigned z) {
  cudaLaunchAttribute a = {};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = x;
  a.val.clusterDim.y = y;
  a.val.clusterDim.z = z;
  return a;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  int *out;
  CHECK(cudaMalloc(&out, 1 << 20));
  std::vector<int> results;
  auto keep = [&](int count) {
    std::vector<int> host(count);
    cudaMemcpy(host.data(), out, count * sizeof(int), cudaMemcpyDeviceToHost);
    results.insert(results.end(), host.begin(), host.end());
    cudaMemset(out, 0, 1 << 20);
  };

  cudaLaunchAttribute attrs[2] = {cluster(4, 1, 1)};
  SAY("cluster 8x1 by 4x1", launch(dim3(8), dim3(64), attrs, 1, neighbours, out));
  keep(8 * 64);
  attrs[0] = cluster(2, 2, 1);
  SAY("cluster 4x4 by 2x2", launch(dim3(4, 4), dim3(32), attrs, 1, neighbours, out));
  keep(16 * 32);

  cudaLaunchAttribute wide[2] = {cluster(16, 1, 1)};
  wide[1].id = cudaLaunchAttributePortableClusterSizeMode;
  wide[1].val.portableClusterSizeMode = cudaLaunchPortableClusterModeAllowNonPortable;
  SAY("cluster of 16 allowed by the launch", launch(dim3(16), dim3(32), wide, 2, neighbours, out));
  keep(16 * 32);
  attrs[0] = cluster(2, 1, 1);
  SAY("declared kernel own shape", launch(dim3(4), dim3(32), attrs, 1, declared, out));
  keep(32);

  cudaLaunchAttribute coop = {};
  coop.id = cudaLaunchAttributeCooperative;
  coop.val.cooperative = 1;
  SAY("cooperative", launch(dim3(6), dim3(32), &coop, 1, plain, out));
  keep(6 * 32);
  cudaLaunchAttribute hints[2] = {};
  hints[0].id = cudaLaunchAttributePriority;
  hints[0].val.priority = 0;
  hints[1].id = cudaLaunchAttributeIgnore;
  SAY("priority and ignore", launch(dim3(3), dim3(32), hints, 2, plain, out));
  keep(3 * 32);
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  cudaLaunchAttribute completion = {};
  completion.id = cudaLaunchAttributeLaunchCompletionEvent;
  completion.val.launchCompletionEvent.event = done;
  SAY("completion event", launch(dim3(2), dim3(32), &completion, 1, plain, out));
  SAY("completion event query", cudaEventQuery(done));
  keep(2 * 32);
  write_file(argv[1], results.data(), results.size());

  attrs[0] = cluster(4, 1, 1);
  SAY("grid not whole clusters", launch(dim3(6), dim3(32), attrs, 1, neighbours, out));
  attrs[0] = cluster(0, 1, 1);
  SAY("cluster of zero", launch(dim3(4), dim3(32), attrs, 1, neighbours, out));
  attrs[0] = cluster(16, 1, 1);
  SAY("cluster of 16 not opted in", launch(dim3(16), dim3(32), attrs, 1, neighbours, out));
  CHECK(cudaFuncSetAttribute(neighbours, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  SAY("cluster of 16 opted in", launch(dim3(16), dim3(32), attrs, 1, neighbours, out));
  wide[1].val.portableClusterSizeMode = cudaLaunchPortableClusterModeRequirePortable;
  SAY("cluster of 16 portable required", launch(dim3(16), dim3(32), wide, 2, neighbours, out));
  attrs[0] = cluster(4, 1, 1);
  SAY("declared kernel other shape", launch(dim3(4), dim3(32), attrs, 1, declared, out));
  coop.val.cooperative = 1;
  SAY("cooperative too large", launch(dim3(1 << 20), dim3(1024), &coop, 1, plain, out));
  cudaLaunchAttribute odd = {};
  odd.id = cudaLaunchAttributeSynchronizationPolicy;
  odd.val.syncPolicy = cudaSyncPolicyAuto;
  SAY("synchronization policy", launch(dim3(1), dim3(32), &odd, 1, plain, out));
  odd = {};
  odd.id = (cudaLaunchAttributeID)99;
  SAY("unknown attribute", launch(dim3(1), dim3(32), &odd, 1, plain, out));
  SAY("attributes null", launch(dim3(1), dim3(32), nullptr, 1, plain, out));
  SAY("attributes wild", launch(dim3(1), dim3(32), (cudaLaunchAttribute *)0x10, 1, plain, out));
  SAY("sticky after refusals", cudaDeviceSynchronize());
  printf("launch_ex done %zu\n", results.size());
  return 0;
}
