// Conditional graph nodes (nvcc -rdc=true): IF with and without ELSE, WHILE, SWITCH, nested, their
// handles' default values, a body filled by capture, a conditional node added to a capture in progress,
// cudaGraphAddNode for other node kinds, and the codes of calls CUDA refuses.
// Usage: graph_conditional in.bin out.bin N M S
//   in.bin: float32 x; N: the WHILE's iterations; M: the nested loop's; S: a switch value.
//   out.bin: float32 rows of x's length: the WHILE's y (halving), after a body kernel's scale was set
//   in the executable graph (a quarter), after an update from a graph of the same shape (three
//   quarters), and the captured body's result.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "io.h"
#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

// y = y s + x, N times: thread 0 counts the counter down and keeps the loop going while it is above 0
__global__ void iterate(float *y, const float *x, int n, int *counter, cudaGraphConditionalHandle loop, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fadd_rn(__fmul_rn(y[i], s), x[i]);
  if (i == 0) cudaGraphSetConditional(loop, --*counter > 0);
}
__global__ void arm(int *counter, int value) { *counter = value; }
__global__ void decide(const int *flag, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *flag); }
__global__ void mark(int *marker, int value) { *marker = value; }
__global__ void bump(int *count) { ++*count; }
// bumps the count and clears its own IF's handle: a later launch runs the body only if the default returns
__global__ void bump_and_clear(int *count, cudaGraphConditionalHandle h) {
  ++*count;
  cudaGraphSetConditional(h, 0);
}
// the nested loop: counts iterations, loops while the counter is above 0, runs the inner IF on odd ones
__global__ void tick(int *counter, int *iterations, cudaGraphConditionalHandle outer,
                     cudaGraphConditionalHandle inner) {
  int it = (*iterations)++;
  cudaGraphSetConditional(outer, --*counter > 0);
  cudaGraphSetConditional(inner, it & 1);
}
// one iteration of a loop that counts down: the loop goes on while the counter is above 0
__global__ void count_down(int *counter, int *iterations, cudaGraphConditionalHandle loop) {
  ++*iterations;
  cudaGraphSetConditional(loop, --*counter > 0);
}
__global__ void add(float *y, const float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fadd_rn(y[i], __fmul_rn(a, x[i]));
}

static cudaError_t add_kernel(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t count,
                              void *func, int blocks, int threads, void **args) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = func;
  p.kernel.gridDim = dim3(blocks);
  p.kernel.blockDim = dim3(threads);
  p.kernel.kernelParams = args;
  return cudaGraphAddNode(node, g, deps, nullptr, count, &p);
}

static cudaError_t add_conditional(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps, size_t count,
                                   cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type, unsigned size,
                                   cudaGraph_t *bodies) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = size;
  cudaError_t e = cudaGraphAddNode(node, g, deps, nullptr, count, &p);
  if (e == cudaSuccess && bodies)
    for (unsigned k = 0; k < size; k++) bodies[k] = p.conditional.phGraph_out[k];
  return e;
}

struct Loop { cudaGraph_t graph; cudaGraphNode_t memset, arm, loop, copy, body; };

// memset y = 0 -> arm the counter with N -> WHILE { iterate(s) } -> copy y to the host
static cudaError_t build_loop(Loop &l, float *y, float *x, int *n, int *counter, int *iterations, float *s,
                              float *host, cudaGraphConditionalNodeType type) {
  cudaError_t e;
  if ((e = cudaGraphCreate(&l.graph, 0))) return e;
  cudaGraphConditionalHandle h;
  if ((e = cudaGraphConditionalHandleCreate(&h, l.graph, 1, cudaGraphCondAssignDefault))) return e;
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeMemset;
  p.memset.dst = y; p.memset.value = 0; p.memset.elementSize = 4; p.memset.width = *n; p.memset.height = 1;
  if ((e = cudaGraphAddNode(&l.memset, l.graph, nullptr, nullptr, 0, &p))) return e;
  void *arm_args[] = {&counter, iterations};
  if ((e = add_kernel(&l.arm, l.graph, &l.memset, 1, (void *)arm, 1, 1, arm_args))) return e;
  cudaGraph_t body;
  if ((e = add_conditional(&l.loop, l.graph, &l.arm, 1, h, type, 1, &body))) return e;
  void *args[] = {&y, &x, n, &counter, &h, s};
  if ((e = add_kernel(&l.body, body, nullptr, 0, (void *)iterate, (*n + 127) / 128, 128, args))) return e;
  p = {};
  p.type = cudaGraphNodeTypeMemcpy;
  p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(y, *n * sizeof(float), *n * sizeof(float), 1);
  p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(host, *n * sizeof(float), *n * sizeof(float), 1);
  p.memcpy.copyParams.extent = make_cudaExtent(*n * sizeof(float), 1, 1);
  p.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
  return cudaGraphAddNode(&l.copy, l.graph, &l.loop, nullptr, 1, &p);
}

static int read_int(const int *device) {
  int value = -99;
  cudaMemcpy(&value, device, sizeof(int), cudaMemcpyDeviceToHost);
  return value;
}

static cudaError_t launch(cudaGraphExec_t exec) {
  cudaError_t e = cudaGraphLaunch(exec, 0);
  return e ? e : cudaDeviceSynchronize();
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  std::vector<float> x = read_file<float>(argv[1]), out;
  int n = (int)x.size(), N = atoi(argv[3]), M = atoi(argv[4]), S = atoi(argv[5]);
  std::vector<float> host(n, -7.0f);
  float *dx, *dy;
  int *ints;                     // 0 counter, 1 flag, 2 marker, 3 count, 4 iterations, 5 odd iterations
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&ints, 8 * sizeof(int)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int *counter = ints, *flag = ints + 1, *marker = ints + 2, *count = ints + 3, *iterations = ints + 4,
      *odd = ints + 5;

  // WHILE: N iterations of y = y / 2 + x; a body kernel's scale changed in the executable graph
  Loop l;
  float half = 0.5f;
  CHECK(build_loop(l, dy, dx, &n, counter, &N, &half, host.data(), cudaGraphCondTypeWhile));
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(l.loop, &type));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(l.graph, nullptr, &nodes));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, l.graph, 0));
  CHECK(launch(exec));
  printf("while: type %d nodes %zu counter %d\n", (int)type, nodes, read_int(counter));
  out.insert(out.end(), host.begin(), host.end());
  float quarter = 0.25f;
  void *quarter_args[] = {&dy, &dx, &n, &counter, nullptr, &quarter};
  cudaKernelNodeParams kp = {};
  CHECK(cudaGraphKernelNodeGetParams(l.body, &kp));
  quarter_args[4] = kp.kernelParams[4];                 // the loop's handle, as the body node keeps it
  kp.kernelParams = quarter_args;
  SAY("exec set body params", cudaGraphExecKernelNodeSetParams(exec, l.body, &kp));
  CHECK(launch(exec));
  out.insert(out.end(), host.begin(), host.end());
  Loop same, other;
  float three_quarters = 0.75f;
  CHECK(build_loop(same, dy, dx, &n, counter, &N, &three_quarters, host.data(), cudaGraphCondTypeWhile));
  cudaGraphExecUpdateResultInfo info = {};
  SAY("update same shape", cudaGraphExecUpdate(exec, same.graph, &info));
  CHECK(launch(exec));
  out.insert(out.end(), host.begin(), host.end());
  CHECK(build_loop(other, dy, dx, &n, counter, &N, &half, host.data(), cudaGraphCondTypeIf));
  SAY("update WHILE to IF", cudaGraphExecUpdate(exec, other.graph, &info));
  printf("result %d error node is the conditional %d\n", (int)info.result, info.errorNode == other.loop);
  cudaGetLastError();
  SAY("clone", cudaGraphClone(&other.graph, l.graph));
  cudaGraph_t parent;
  cudaGraphNode_t child;
  CHECK(cudaGraphCreate(&parent, 0));
  SAY("as a child graph", cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, l.graph));
  cudaGetLastError();

  // a WHILE whose handle is 0 at launch never runs its body: the condition comes first
  cudaGraph_t g;
  cudaGraphConditionalHandle h, h2;
  cudaGraphNode_t node, cond;
  cudaGraph_t bodies[4];
  CHECK(cudaMemset(ints, 0, 8 * sizeof(int)));
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
  CHECK(add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeWhile, 1, bodies));
  void *count_args[] = {&count};
  CHECK(add_kernel(&node, bodies[0], nullptr, 0, (void *)bump, 1, 1, count_args));
  cudaGraphExec_t e2;
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  CHECK(launch(e2));
  printf("while of 0: body ran %d times\n", read_int(count));

  // IF without ELSE, its value set by a kernel before it from a flag in device memory
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  void *decide_args[] = {&flag, &h};
  CHECK(add_kernel(&node, g, nullptr, 0, (void *)decide, 1, 1, decide_args));
  CHECK(add_conditional(&cond, g, &node, 1, h, cudaGraphCondTypeIf, 1, bodies));
  int seven = 7;
  void *mark_args[] = {&marker, &seven};
  CHECK(add_kernel(&node, bodies[0], nullptr, 0, (void *)mark, 1, 1, mark_args));
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  for (int f = 0; f < 2; f++) {
    CHECK(cudaMemcpy(flag, &f, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(marker, 0xff, sizeof(int)));
    CHECK(launch(e2));
    printf("if, flag %d: marker %d\n", f, read_int(marker));
  }

  // IF with ELSE: body 0 marks 1, body 1 marks 2
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  CHECK(add_kernel(&node, g, nullptr, 0, (void *)decide, 1, 1, decide_args));
  CHECK(add_conditional(&cond, g, &node, 1, h, cudaGraphCondTypeIf, 2, bodies));
  int one = 1, two = 2;
  void *mark1[] = {&marker, &one}, *mark2[] = {&marker, &two};
  CHECK(add_kernel(&node, bodies[0], nullptr, 0, (void *)mark, 1, 1, mark1));
  CHECK(add_kernel(&node, bodies[1], nullptr, 0, (void *)mark, 1, 1, mark2));
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  for (int f = 0; f < 2; f++) {
    CHECK(cudaMemcpy(flag, &f, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(launch(e2));
    printf("if/else, flag %d: marker %d\n", f, read_int(marker));
  }

  // SWITCH of 3: body k marks 10 + k; the program's value S, then 1, then 3 (out of range: none runs)
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  CHECK(add_kernel(&node, g, nullptr, 0, (void *)decide, 1, 1, decide_args));
  CHECK(add_conditional(&cond, g, &node, 1, h, cudaGraphCondTypeSwitch, 3, bodies));
  int marks[3] = {10, 11, 12};
  void *mark_k[3][2] = {{&marker, &marks[0]}, {&marker, &marks[1]}, {&marker, &marks[2]}};
  for (int k = 0; k < 3; k++) CHECK(add_kernel(&node, bodies[k], nullptr, 0, (void *)mark, 1, 1, mark_k[k]));
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  for (int value : {S, 1, 3}) {
    CHECK(cudaMemcpy(flag, &value, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(marker, 0xff, sizeof(int)));
    CHECK(launch(e2));
    printf("switch %d: marker %d\n", value, read_int(marker));
  }

  // the default value: set again at every launch with cudaGraphCondAssignDefault; without it the value
  // a launch left stays (CUDA: undefined)
  for (unsigned flags : {(unsigned)cudaGraphCondAssignDefault, 0u}) {
    CHECK(cudaMemset(count, 0, sizeof(int)));
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, flags));
    CHECK(add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeIf, 1, bodies));
    void *clear_args[] = {&count, &h};
    CHECK(add_kernel(&node, bodies[0], nullptr, 0, (void *)bump_and_clear, 1, 1, clear_args));
    CHECK(cudaGraphInstantiate(&e2, g, 0));
    for (int k = 0; k < 3; k++) CHECK(launch(e2));
    printf("default 1, flags %u: body ran %d of 3 launches\n", flags, read_int(count));
  }
  cudaGraphConditionalHandle outside = h;              // set by a kernel launched on its own, at the end

  // nested: WHILE (M iterations) { tick -> IF (odd iterations) { bump } }
  CHECK(cudaMemset(ints, 0, 8 * sizeof(int)));
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&h2, g, 0, cudaGraphCondAssignDefault));
  void *arm_args[] = {&counter, &M};
  CHECK(add_kernel(&node, g, nullptr, 0, (void *)arm, 1, 1, arm_args));
  CHECK(add_conditional(&cond, g, &node, 1, h, cudaGraphCondTypeWhile, 1, bodies));
  cudaGraph_t outer_body = bodies[0], inner_body;
  void *tick_args[] = {&counter, &iterations, &h, &h2};
  CHECK(add_kernel(&node, outer_body, nullptr, 0, (void *)tick, 1, 1, tick_args));
  CHECK(add_conditional(&cond, outer_body, &node, 1, h2, cudaGraphCondTypeIf, 1, &inner_body));
  void *odd_args[] = {&odd};
  CHECK(add_kernel(&node, inner_body, nullptr, 0, (void *)bump, 1, 1, odd_args));
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  CHECK(launch(e2));
  printf("nested: %d iterations, %d odd\n", read_int(iterations), read_int(odd));

  // a body filled by capture: IF (default 1) { y = 0; y += 2x; y += 3x }
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  CHECK(add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeIf, 1, bodies));
  CHECK(cudaStreamBeginCaptureToGraph(s, bodies[0], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(dy, 0, n * sizeof(float), s));
  add<<<(n + 255) / 256, 256, 0, s>>>(dy, dx, n, 2.0f);
  add<<<(n + 255) / 256, 256, 0, s>>>(dy, dx, n, 3.0f);
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(s, &status));
  CHECK(cudaStreamEndCapture(s, nullptr));
  size_t in_body = 0;
  CHECK(cudaGraphGetNodes(bodies[0], nullptr, &in_body));
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  CHECK(launch(e2));
  CHECK(cudaMemcpy(host.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  out.insert(out.end(), host.begin(), host.end());
  printf("captured body: capturing %d, %zu nodes\n", (int)status, in_body);

  // a conditional node added to a capture in progress: arm the counter, WHILE { count_down }, bump
  CHECK(cudaMemset(ints, 0, 8 * sizeof(int)));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaGraph_t captured;
  const cudaGraphNode_t *deps;
  const cudaGraphEdgeData *edges;
  size_t ndeps = 9;
  CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &captured, &deps, nullptr, &ndeps));
  printf("capture info: status %d, %zu dependencies\n", (int)status, ndeps);
  CHECK(cudaGraphConditionalHandleCreate(&h, captured, 1, cudaGraphCondAssignDefault));
  arm<<<1, 1, 0, s>>>(counter, M);
  CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &captured, &deps, &edges, &ndeps));
  printf("after a launch: %zu dependency, edge type %d\n", ndeps, (int)edges[0].type);
  CHECK(add_conditional(&cond, captured, deps, ndeps, h, cudaGraphCondTypeWhile, 1, bodies));
  CHECK(cudaStreamUpdateCaptureDependencies(s, &cond, nullptr, 1, cudaStreamSetCaptureDependencies));
  bump<<<1, 1, 0, s>>>(odd);
  cudaGraph_t whole;
  CHECK(cudaStreamEndCapture(s, &whole));
  CHECK(cudaStreamBeginCaptureToGraph(s, bodies[0], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  count_down<<<1, 1, 0, s>>>(counter, iterations, h);
  CHECK(cudaStreamEndCapture(s, nullptr));
  CHECK(cudaGraphGetNodes(whole, nullptr, &nodes));
  size_t roots = 0;
  CHECK(cudaGraphGetRootNodes(whole, nullptr, &roots));
  CHECK(cudaGraphInstantiate(&e2, whole, 0));
  CHECK(launch(e2));
  printf("capture with a WHILE: same graph %d, %d nodes, %zu root, %d iterations, then bumped %d\n",
         whole == captured, (int)nodes, roots, read_int(iterations), read_int(odd));

  // cudaGraphAddNode of other kinds: host, empty, memory allocation and free
  static int calls = 0;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeHost;
  p.host.fn = [](void *c) { ++*(int *)c; };
  p.host.userData = &calls;
  CHECK(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p));
  p = {};
  p.type = cudaGraphNodeTypeEmpty;
  CHECK(cudaGraphAddNode(&node, g, &node, nullptr, 1, &p));
  p = {};
  p.type = cudaGraphNodeTypeMemAlloc;
  p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  p.alloc.bytesize = 256;
  CHECK(cudaGraphAddNode(&node, g, &node, nullptr, 1, &p));
  void *allocated = p.alloc.dptr;
  int nine = 9;
  void *alloc_args[] = {&allocated, &nine};
  CHECK(add_kernel(&node, g, &node, 1, (void *)mark, 1, 1, alloc_args));
  p = {};
  p.type = cudaGraphNodeTypeMemFree;
  p.free.dptr = allocated;
  CHECK(cudaGraphAddNode(&node, g, &node, nullptr, 1, &p));
  CHECK(cudaGraphNodeGetType(node, &type));
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  CHECK(launch(e2));
  printf("add node: host ran %d, allocated %d, free node type %d, marked %d\n", calls, allocated != nullptr,
         (int)type, read_int((int *)allocated));

  // the codes of bad calls
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  SAY("while of size 2", add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeWhile, 2, bodies));
  SAY("if of size 3", add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeIf, 3, bodies));
  SAY("switch of size 0", add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeSwitch, 0, bodies));
  SAY("type 7", add_conditional(&cond, g, nullptr, 0, h, (cudaGraphConditionalNodeType)7, 1, bodies));
  SAY("invalid handle", add_conditional(&cond, g, nullptr, 0, 12345, cudaGraphCondTypeIf, 1, bodies));
  SAY("handle flags 2", cudaGraphConditionalHandleCreate(&h2, g, 0, 2));
  SAY("handle of no graph", cudaGraphConditionalHandleCreate(&h2, (cudaGraph_t)0x10, 0, 0));
  CHECK(add_conditional(&cond, g, nullptr, 0, h, cudaGraphCondTypeIf, 1, bodies));
  CHECK(cudaGraphConditionalHandleCreate(&h2, bodies[0], 0, 0));
  SAY("body's handle in its parent", add_conditional(&node, g, nullptr, 0, h2, cudaGraphCondTypeIf, 1, nullptr));
  CHECK(cudaGraphCreate(&parent, 0));
  SAY("another graph's handle", add_conditional(&node, parent, nullptr, 0, h, cudaGraphCondTypeIf, 1, nullptr));
  p = {};
  p.type = cudaGraphNodeTypeHost;
  p.host.fn = [](void *) {};
  CHECK(cudaGraphAddNode(&node, bodies[0], nullptr, nullptr, 0, &p));
  SAY("host node in a body", cudaGraphInstantiate(&e2, g, 0));
  p = {};
  p.type = cudaGraphNodeTypeExtSemaphoreSignal;
  SAY("semaphore node", cudaGraphAddNode(&node, parent, nullptr, nullptr, 0, &p));
  SAY("update deps, not capturing", cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, 0));
  cudaGetLastError();

  write_file(argv[2], out.data(), out.size());
  // a kernel launched on its own cannot set a graph's handle: an illegal address, which ends the context
  decide<<<1, 1>>>(flag, outside);
  SAY("set outside the graph", cudaDeviceSynchronize());
  printf("graph conditional done\n");
  return 0;
}
