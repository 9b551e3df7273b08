// A CUDA graph built node by node: a memset, four kernels in a diamond, a copy back and a host node;
// its queries, launches, a kernel node's parameters changed in the executable graph, an update from a
// graph of the same shape and one refused from a graph of another, a child graph between event wait
// and record nodes, a clone; then a
// capture that forks into a second stream and joins it back through events, and one that does not;
// a capture that allocates and frees memory of its own, and memory allocation and free nodes added by hand.
// Usage: graph_nodes in.bin out.bin dot.txt   (in.bin: float32 x; out.bin: the host buffer after
// each of six launches, float32)
#include <cstdio>
#include <cstring>
#include <vector>
#include "io.h"
#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

__global__ void axpy(float *y, const float *x, int n, float a) {   // y = y + a x (no contraction)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fadd_rn(y[i], __fmul_rn(a, x[i]));
}
__global__ void scale(float *out, const float *in, int n, float s, float t) {   // out = in s + t
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __fadd_rn(__fmul_rn(in[i], s), t);
}
__global__ void sum(float *out, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __fadd_rn(a[i], b[i]);
}

static void CUDART_CB count(void *calls) { ++*(int *)calls; }

struct Buffers { float *x, *y, *z, *w, *out; float *host; int n; int *calls; };

struct Built { cudaGraph_t graph; cudaGraphNode_t memset, axpy, left, right, join, copy, host; };

// memset y = 1.5; axpy y += a x; left z = 3 y; right w = y - 1; join out = z + w; copy out back; count
static cudaError_t build(Built &b, Buffers &m, float a, bool extra) {
  cudaError_t e;
  if ((e = cudaGraphCreate(&b.graph, 0))) return e;
  cudaMemsetParams ms = {};
  float fill = 1.5f;
  ms.dst = m.y; ms.pitch = 0; ms.elementSize = 4; ms.width = m.n; ms.height = 1;
  memcpy(&ms.value, &fill, 4);
  if ((e = cudaGraphAddMemsetNode(&b.memset, b.graph, nullptr, 0, &ms))) return e;
  int n = m.n;
  float three = 3.0f, zero = 0.0f, one = 1.0f, minus = -1.0f;
  void *axpy_args[] = {&m.y, &m.x, &n, &a};
  cudaKernelNodeParams k = {};
  k.func = (void *)axpy; k.gridDim = dim3((n + 255) / 256); k.blockDim = dim3(256); k.kernelParams = axpy_args;
  if ((e = cudaGraphAddKernelNode(&b.axpy, b.graph, &b.memset, 1, &k))) return e;
  void *left_args[] = {&m.z, &m.y, &n, &three, &zero};
  k.func = (void *)scale; k.gridDim = dim3((n + 127) / 128); k.blockDim = dim3(128); k.kernelParams = left_args;
  if ((e = cudaGraphAddKernelNode(&b.left, b.graph, &b.axpy, 1, &k))) return e;
  void *right_args[] = {&m.w, &m.y, &n, &one, &minus};
  k.kernelParams = right_args;
  if ((e = cudaGraphAddKernelNode(&b.right, b.graph, &b.axpy, 1, &k))) return e;
  void *join_args[] = {&m.out, &m.z, &m.w, &n};
  k.func = (void *)sum; k.kernelParams = join_args;
  cudaGraphNode_t both[] = {b.left, b.right};
  if ((e = cudaGraphAddKernelNode(&b.join, b.graph, both, 2, &k))) return e;
  if ((e = cudaGraphAddMemcpyNode1D(&b.copy, b.graph, &b.join, 1, m.host, m.out, n * sizeof(float),
                                    cudaMemcpyDeviceToHost))) return e;
  cudaHostNodeParams h = {count, m.calls};
  if ((e = cudaGraphAddHostNode(&b.host, b.graph, &b.copy, 1, &h))) return e;
  if (extra) {
    cudaGraphNode_t empty;
    if ((e = cudaGraphAddEmptyNode(&empty, b.graph, &b.host, 1))) return e;
  }
  return cudaSuccess;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  std::vector<float> x = read_file<float>(argv[1]), out;
  int calls = 0;
  Buffers m;
  m.n = (int)x.size();
  m.calls = &calls;
  std::vector<float> host(m.n, -7.0f);
  m.host = host.data();
  for (float **p : {&m.x, &m.y, &m.z, &m.w, &m.out}) CHECK(cudaMalloc(p, m.n * sizeof(float)));
  CHECK(cudaMemcpy(m.x, x.data(), m.n * sizeof(float), cudaMemcpyHostToDevice));
  Built g;
  CHECK(build(g, m, 2.0f, false));

  size_t count_nodes = 0, roots = 0, edges = 0;
  CHECK(cudaGraphGetNodes(g.graph, nullptr, &count_nodes));
  CHECK(cudaGraphGetRootNodes(g.graph, nullptr, &roots));
  CHECK(cudaGraphGetEdges(g.graph, nullptr, nullptr, nullptr, &edges));
  printf("nodes %zu roots %zu edges %zu\n", count_nodes, roots, edges);
  std::vector<cudaGraphNode_t> listed(count_nodes + 2, (cudaGraphNode_t)0x1);
  size_t room = listed.size();
  CHECK(cudaGraphGetNodes(g.graph, listed.data(), &room));
  printf("listed %zu first is memset %d last is host %d padded %d\n", room, listed[0] == g.memset,
         listed[count_nodes - 1] == g.host, listed[count_nodes] == nullptr);
  size_t deps = 0;
  CHECK(cudaGraphNodeGetDependencies(g.join, nullptr, nullptr, &deps));
  size_t after = 0;
  CHECK(cudaGraphNodeGetDependentNodes(g.axpy, nullptr, nullptr, &after));
  printf("join waits for %zu, axpy feeds %zu\n", deps, after);
  cudaGraphNodeType types[4];
  CHECK(cudaGraphNodeGetType(g.axpy, &types[0]));
  CHECK(cudaGraphNodeGetType(g.memset, &types[1]));
  CHECK(cudaGraphNodeGetType(g.copy, &types[2]));
  CHECK(cudaGraphNodeGetType(g.host, &types[3]));
  printf("types %d %d %d %d\n", (int)types[0], (int)types[1], (int)types[2], (int)types[3]);
  cudaKernelNodeParams got = {};
  CHECK(cudaGraphKernelNodeGetParams(g.left, &got));
  printf("left grid %u block %u func %d\n", got.gridDim.x, got.blockDim.x, got.func == (void *)scale);
  SAY("edge twice", cudaGraphAddDependencies(g.graph, &g.memset, &g.axpy, nullptr, 1));
  SAY("remove missing", cudaGraphRemoveDependencies(g.graph, &g.memset, &g.join, nullptr, 1));
  cudaGetLastError();
  CHECK(cudaGraphDebugDotPrint(g.graph, argv[3], 0));

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g.graph, 0));
  printf("instantiated ran %g calls %d\n", host[5], calls);
  for (int k = 0; k < 2; k++) {
    host.assign(m.n, -7.0f);
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaDeviceSynchronize());
    printf("launch %d calls %d\n", k, calls);
  }
  out.insert(out.end(), host.begin(), host.end());

  float four = 4.0f;
  int n = m.n;
  void *changed[] = {&m.y, &m.x, &n, &four};
  cudaKernelNodeParams k = {};
  k.func = (void *)axpy; k.gridDim = dim3((n + 255) / 256); k.blockDim = dim3(256); k.kernelParams = changed;
  SAY("exec set params", cudaGraphExecKernelNodeSetParams(exec, g.axpy, &k));
  four = 100.0f;                                        // the node keeps the value at the call: 4
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  out.insert(out.end(), host.begin(), host.end());
  CHECK(cudaGraphKernelNodeGetParams(g.axpy, &got));
  printf("graph keeps a %g\n", *(float *)got.kernelParams[3]);

  Built same, other;
  CHECK(build(same, m, 3.0f, false));
  cudaGraphExecUpdateResultInfo info = {};
  SAY("update same shape", cudaGraphExecUpdate(exec, same.graph, &info));
  printf("result %d\n", (int)info.result);
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  out.insert(out.end(), host.begin(), host.end());
  CHECK(build(other, m, 5.0f, true));
  SAY("update other shape", cudaGraphExecUpdate(exec, other.graph, &info));
  printf("result %d\n", (int)info.result);
  cudaGetLastError();

  cudaGraph_t parent, clone;
  CHECK(cudaGraphCreate(&parent, 0));
  cudaGraphNode_t child;
  cudaEvent_t before, done;
  CHECK(cudaEventCreate(&before));
  CHECK(cudaEventCreate(&done));
  cudaGraphNode_t waited, recorded;
  CHECK(cudaGraphAddEventWaitNode(&waited, parent, nullptr, 0, before));
  CHECK(cudaGraphAddChildGraphNode(&child, parent, &waited, 1, g.graph));
  CHECK(cudaGraphAddEventRecordNode(&recorded, parent, &child, 1, done));
  cudaGraphNodeType child_type, wait_type, record_type;
  CHECK(cudaGraphNodeGetType(child, &child_type));
  CHECK(cudaGraphNodeGetType(waited, &wait_type));
  CHECK(cudaGraphNodeGetType(recorded, &record_type));
  cudaGraphExec_t parent_exec;
  CHECK(cudaGraphInstantiate(&parent_exec, parent, 0));
  host.assign(m.n, -7.0f);
  CHECK(cudaEventRecord(before, 0));
  CHECK(cudaGraphLaunch(parent_exec, 0));
  CHECK(cudaDeviceSynchronize());
  out.insert(out.end(), host.begin(), host.end());
  float between = 0.0f;
  CHECK(cudaEventElapsedTime(&between, before, done));
  printf("child type %d calls %d\n", (int)child_type, calls);
  printf("event nodes %d %d, elapsed positive %d\n", (int)wait_type, (int)record_type, between > 0.0f);
  CHECK(cudaGraphClone(&clone, g.graph));
  CHECK(cudaGraphDestroyNode(g.host));
  size_t left_nodes = 0, clone_nodes = 0;
  CHECK(cudaGraphGetNodes(g.graph, nullptr, &left_nodes));
  CHECK(cudaGraphGetNodes(clone, nullptr, &clone_nodes));
  printf("after destroying a node %zu, its clone %zu\n", left_nodes, clone_nodes);

  cudaStream_t s1, s2;
  cudaEvent_t fork, join;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(m.out, 0, n * sizeof(float), s1));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(s2, &status));
  printf("forked stream capturing %d\n", (int)status);
  scale<<<(n + 255) / 256, 256, 0, s1>>>(m.z, m.x, n, 2.0f, 0.0f);
  scale<<<(n + 255) / 256, 256, 0, s2>>>(m.w, m.x, n, 1.0f, 1.0f);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  sum<<<(n + 255) / 256, 256, 0, s1>>>(m.out, m.z, m.w, n);
  CHECK(cudaMemcpyAsync(m.host, m.out, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
  cudaGraph_t forked;
  CHECK(cudaStreamEndCapture(s1, &forked));
  size_t fork_nodes = 0, fork_roots = 0, fork_edges = 0;
  CHECK(cudaGraphGetNodes(forked, nullptr, &fork_nodes));
  CHECK(cudaGraphGetRootNodes(forked, nullptr, &fork_roots));
  CHECK(cudaGraphGetEdges(forked, nullptr, nullptr, nullptr, &fork_edges));
  CHECK(cudaStreamIsCapturing(s2, &status));
  printf("fork and join: nodes %zu roots %zu edges %zu, second stream capturing %d\n", fork_nodes, fork_roots,
         fork_edges, (int)status);
  std::vector<cudaGraphNode_t> fork_list(fork_nodes);
  CHECK(cudaGraphGetNodes(forked, fork_list.data(), &fork_nodes));
  cudaGraphNode_t joined_node = nullptr;                // the captured kernels as kernel nodes: find the sum
  for (cudaGraphNode_t node : fork_list) {
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel) continue;
    CHECK(cudaGraphKernelNodeGetParams(node, &got));
    if (got.func == (void *)sum) joined_node = node;
  }
  CHECK(cudaGraphKernelNodeGetParams(joined_node, &got));
  printf("captured sum: grid %u block %u n %d\n", got.gridDim.x, got.blockDim.x, *(int *)got.kernelParams[3]);
  cudaGraphExec_t fork_exec;
  CHECK(cudaGraphInstantiate(&fork_exec, forked, 0));
  host.assign(m.n, -7.0f);
  CHECK(cudaGraphLaunch(fork_exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  out.insert(out.end(), host.begin(), host.end());
  write_file(argv[2], out.data(), out.size());

  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  scale<<<(n + 255) / 256, 256, 0, s2>>>(m.w, m.x, n, 1.0f, 1.0f);
  SAY("end from the forked stream", cudaStreamEndCapture(s2, &forked));
  SAY("end unjoined", cudaStreamEndCapture(s1, &forked));
  cudaGetLastError();
  CHECK(cudaStreamIsCapturing(s2, &status));
  printf("after unjoined end: second stream capturing %d\n", (int)status);
  CHECK(cudaGraphExecDestroy(fork_exec));

  float *scratch = nullptr;                            // graph-owned memory: allocated and freed in the graph
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&scratch, n * sizeof(float), s1));
  scale<<<(n + 255) / 256, 256, 0, s1>>>(scratch, m.x, n, 2.0f, 0.0f);
  sum<<<(n + 255) / 256, 256, 0, s1>>>(m.out, scratch, m.x, n);
  CHECK(cudaFreeAsync(scratch, s1));
  CHECK(cudaMemcpyAsync(m.host, m.out, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
  cudaGraph_t owning;
  CHECK(cudaStreamEndCapture(s1, &owning));
  size_t owning_nodes = 0;
  CHECK(cudaGraphGetNodes(owning, nullptr, &owning_nodes));
  std::vector<cudaGraphNode_t> owned(owning_nodes);
  CHECK(cudaGraphGetNodes(owning, owned.data(), &owning_nodes));
  cudaGraphNodeType first_type, fourth_type;
  CHECK(cudaGraphNodeGetType(owned[0], &first_type));
  CHECK(cudaGraphNodeGetType(owned[3], &fourth_type));
  printf("graph-owned memory: nodes %zu types %d %d\n", owning_nodes, (int)first_type, (int)fourth_type);
  cudaGraphExec_t owning_exec;
  CHECK(cudaGraphInstantiate(&owning_exec, owning, 0));
  for (int k = 0; k < 2; k++) {
    host.assign(m.n, -7.0f);
    CHECK(cudaGraphLaunch(owning_exec, s1));
    CHECK(cudaStreamSynchronize(s1));
  }
  out.insert(out.end(), host.begin(), host.end());
  write_file(argv[2], out.data(), out.size());
  CHECK(cudaGraphExecDestroy(owning_exec));
  CHECK(cudaGraphDestroy(owning));

  int calls_before = calls;                             // a graph launched into a capturing stream: refused,
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));   // and the capture is invalidated
  SAY("graph launched while capturing", cudaGraphLaunch(exec, s1));
  cudaGraph_t nested = nullptr;
  SAY("end after it", cudaStreamEndCapture(s1, &nested));
  printf("no graph %d, ran %d\n", nested == nullptr, calls - calls_before);
  cudaGetLastError();

  cudaEvent_t external;                                 // an external event record: a node of the capture
  CHECK(cudaEventCreate(&external));
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  scale<<<(n + 255) / 256, 256, 0, s1>>>(m.w, m.x, n, 1.0f, 1.0f);
  CHECK(cudaEventRecordWithFlags(external, s1, cudaEventRecordExternal));
  cudaGraph_t recording;
  CHECK(cudaStreamEndCapture(s1, &recording));
  size_t recording_nodes = 2;
  cudaGraphNode_t recorded_nodes[2];
  CHECK(cudaGraphGetNodes(recording, recorded_nodes, &recording_nodes));
  cudaGraphNodeType recorded_type;
  CHECK(cudaGraphNodeGetType(recorded_nodes[1], &recorded_type));
  printf("external record captured: nodes %zu type %d\n", recording_nodes, (int)recorded_type);
  CHECK(cudaGraphDestroy(recording));

  cudaGraph_t by_hand;                                  // graph-owned memory from nodes added by hand
  CHECK(cudaGraphCreate(&by_hand, 0));
  cudaMemAllocNodeParams alloc_params = {};
  alloc_params.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc_params.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc_params.bytesize = n * sizeof(float);
  cudaGraphNode_t alloc_node, fill_node, back_node, free_node;
  CHECK(cudaGraphAddMemAllocNode(&alloc_node, by_hand, nullptr, 0, &alloc_params));
  float *owned_scratch = (float *)alloc_params.dptr;
  float times = 4.0f, plus = 0.5f;
  void *fill_args[] = {&owned_scratch, &m.x, &n, &times, &plus};
  cudaKernelNodeParams fill = {};
  fill.func = (void *)scale; fill.gridDim = dim3((n + 255) / 256); fill.blockDim = dim3(256); fill.kernelParams = fill_args;
  CHECK(cudaGraphAddKernelNode(&fill_node, by_hand, &alloc_node, 1, &fill));
  CHECK(cudaGraphAddMemcpyNode1D(&back_node, by_hand, &fill_node, 1, m.host, owned_scratch, n * sizeof(float),
                                 cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddMemFreeNode(&free_node, by_hand, &back_node, 1, owned_scratch));
  cudaMemAllocNodeParams read_alloc = {};
  void *freed = nullptr;
  CHECK(cudaGraphMemAllocNodeGetParams(alloc_node, &read_alloc));
  CHECK(cudaGraphMemFreeNodeGetParams(free_node, &freed));
  cudaGraphExec_t by_hand_exec;
  CHECK(cudaGraphInstantiate(&by_hand_exec, by_hand, 0));
  int matches = 1;
  for (int k = 0; k < 3; k++) {
    host.assign(m.n, -7.0f);
    CHECK(cudaGraphLaunch(by_hand_exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; i++) matches &= host[i] == x[i] * 4.0f + 0.5f;      // (x 4 is exact: one rounding)
    if (k == 1) SAY("cudaFree of memory its graph's free node freed", cudaFree(owned_scratch));
  }
  cudaGraph_t keeps;                                    // no free node: freed outside, relaunched, it is back
  CHECK(cudaGraphCreate(&keeps, 0));
  alloc_params.dptr = nullptr;
  CHECK(cudaGraphAddMemAllocNode(&alloc_node, keeps, nullptr, 0, &alloc_params));
  float *kept_scratch = (float *)alloc_params.dptr;
  void *keep_args[] = {&kept_scratch, &m.x, &n, &times, &plus};
  fill.kernelParams = keep_args;
  CHECK(cudaGraphAddKernelNode(&fill_node, keeps, &alloc_node, 1, &fill));
  CHECK(cudaGraphAddMemcpyNode1D(&back_node, keeps, &fill_node, 1, m.host, kept_scratch, n * sizeof(float),
                                 cudaMemcpyDeviceToHost));
  cudaGraphExec_t keeps_exec;
  CHECK(cudaGraphInstantiate(&keeps_exec, keeps, 0));
  int kept_matches = 1;
  for (int k = 0; k < 2; k++) {
    host.assign(m.n, -7.0f);
    CHECK(cudaGraphLaunch(keeps_exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; i++) kept_matches &= host[i] == x[i] * 4.0f + 0.5f;
    CHECK(cudaFree(kept_scratch));
  }
  printf("freed outside its graph and relaunched twice: matches %d\n", kept_matches);
  CHECK(cudaGraphExecDestroy(keeps_exec));
  CHECK(cudaGraphDestroy(keeps));
  unsigned long long used = 0, high = 0, zero = 0;        // (cuuint64_t, of cuda.h)
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
  printf("graph memory in use covers both graphs' %d, high reset to it %d\n", used >= 2 * n * sizeof(float),
         high == used);
  printf("memory nodes by hand: address %d size %d freed names it %d result matches %d\n",
         owned_scratch != nullptr && read_alloc.dptr == owned_scratch, read_alloc.bytesize == n * sizeof(float),
         freed == owned_scratch, matches);
  SAY("free node of a pointer no node allocated", cudaGraphAddMemFreeNode(&free_node, by_hand, nullptr, 0, m.x));
  alloc_params.poolProps.location.type = cudaMemLocationTypeHost;
  SAY("alloc node on the host", cudaGraphAddMemAllocNode(&alloc_node, by_hand, nullptr, 0, &alloc_params));
  CHECK(cudaGraphExecDestroy(by_hand_exec));
  CHECK(cudaGraphDestroy(by_hand));

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(parent_exec));
  for (cudaGraph_t d : {g.graph, same.graph, other.graph, parent, clone}) CHECK(cudaGraphDestroy(d));
  for (float *p : {m.x, m.y, m.z, m.w, m.out}) CHECK(cudaFree(p));
  printf("graph nodes done\n");
  return 0;
}
