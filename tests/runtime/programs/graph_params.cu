// Graph node parameters read and changed after the nodes are made: the generic cudaGraphNodeParams
// forms, copies to and from a __device__ symbol, 3D copy parameters, event nodes' events, a child
// graph changed in an executable graph, nodes disabled and enabled, ids and clones, instantiation
// with parameters, kernel node attributes (a cluster shape that takes effect), and user objects
// whose destructors run when the last reference, a graph's or an executable graph's, goes.
// Usage: graph_params in.bin out.bin   (in.bin: float32 x; out.bin: float32 rows, see main)
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include "io.h"
namespace cg = cooperative_groups;
#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

__device__ float offset_value;

__global__ void affine(float *y, const float *x, int n, float s) {   // y = x s + offset_value
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fadd_rn(__fmul_rn(x[i], s), offset_value);
}
__global__ void fill(float *y, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}
__global__ void cluster_rank(int *out) {
  if (threadIdx.x == 0) out[blockIdx.x] = (int)cg::this_cluster().block_rank() + 10 * (int)cg::this_cluster().num_blocks();
}

static int destroyed = 0;
static void CUDART_CB destroy(void *what) { destroyed += *(int *)what; }

static cudaKernelNodeParams affine_params(void **args, int n) {
  cudaKernelNodeParams k = {};
  k.func = (void *)affine; k.gridDim = dim3((n + 127) / 128); k.blockDim = dim3(128); k.kernelParams = args;
  return k;
}

static cudaGraph_t fill_graph(float *y, int n, float v, bool two) {   // a child graph: one or two fills
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  void *args[] = {&y, &n, &v};
  cudaKernelNodeParams k = {};
  k.func = (void *)fill; k.gridDim = dim3((n + 255) / 256); k.blockDim = dim3(256); k.kernelParams = args;
  cudaGraphNode_t a, b;
  cudaGraphAddKernelNode(&a, g, nullptr, 0, &k);
  if (two) cudaGraphAddKernelNode(&b, g, &a, 1, &k);
  return g;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  std::vector<float> x = read_file<float>(argv[1]);
  int n = (int)x.size();
  size_t bytes = n * sizeof(float);
  std::vector<float> rows, host(n), other(n);
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, bytes));
  CHECK(cudaMalloc(&dy, bytes));
  CHECK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  void *symbol_address;
  CHECK(cudaGetSymbolAddress(&symbol_address, offset_value));

  // to_symbol: offset_value = c; kernel: y = x s + offset_value; back: c_back = offset_value; copy y out; record
  float c = 0.25f, c_back = 0, s = 3.0f;
  cudaGraph_t g;
  cudaGraphNode_t to_symbol, kernel, from_symbol, copy, record;
  cudaEvent_t first, second;
  CHECK(cudaEventCreate(&first));
  CHECK(cudaEventCreate(&second));
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphAddMemcpyNodeToSymbol(&to_symbol, g, nullptr, 0, offset_value, &c, sizeof(float), 0,
                                       cudaMemcpyHostToDevice));
  void *args[] = {&dy, &dx, &n, &s};
  cudaKernelNodeParams k = affine_params(args, n);
  CHECK(cudaGraphAddKernelNode(&kernel, g, &to_symbol, 1, &k));
  CHECK(cudaGraphAddMemcpyNodeFromSymbol(&from_symbol, g, &kernel, 1, &c_back, offset_value, sizeof(float), 0,
                                         cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, host.data(), dy, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddEventRecordNode(&record, g, &copy, 1, first));
  cudaGraphNode_t bad;
  SAY("to symbol device-to-host", cudaGraphAddMemcpyNodeToSymbol(&bad, g, nullptr, 0, offset_value, &c,
                                                                  sizeof(float), 0, cudaMemcpyDeviceToHost));
  SAY("from symbol past its end", cudaGraphAddMemcpyNodeFromSymbol(&bad, g, nullptr, 0, &c_back, offset_value,
                                                                    sizeof(float), 4, cudaMemcpyDeviceToHost));

  // the generic form, read back
  cudaGraphNodeParams p = {};
  CHECK(cudaGraphNodeGetParams(kernel, &p));
  printf("generic kernel: type %d func %d grid %u block %u\n", (int)p.type, p.kernel.func == (void *)affine,
         p.kernel.gridDim.x, p.kernel.blockDim.x);
  CHECK(cudaGraphNodeGetParams(copy, &p));
  printf("generic copy: type %d width %zu kind %d dst %d\n", (int)p.type, p.memcpy.copyParams.extent.width,
         (int)p.memcpy.copyParams.kind, p.memcpy.copyParams.dstPtr.ptr == host.data());
  cudaMemcpy3DParms copy3d = {};
  CHECK(cudaGraphMemcpyNodeGetParams(to_symbol, &copy3d));
  printf("symbol copy: to its address %d, %zu bytes\n", copy3d.dstPtr.ptr == symbol_address, copy3d.extent.width);
  CHECK(cudaGraphNodeGetParams(record, &p));
  printf("generic record: type %d event %d\n", (int)p.type, p.eventRecord.event == first);

  // the generic form, changed: a kernel node takes new arguments; a wrong type is refused
  float s2 = -2.0f;
  void *args2[] = {&dy, &dx, &n, &s2};
  memset(&p, 0, sizeof(p));
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = (void *)affine; p.kernel.gridDim = dim3((n + 127) / 128); p.kernel.blockDim = dim3(128);
  p.kernel.kernelParams = args2;
  CHECK(cudaGraphNodeSetParams(kernel, &p));
  SAY("kernel params on a copy node", cudaGraphNodeSetParams(copy, &p));
  p.reserved0[1] = 1;
  SAY("reserved word set", cudaGraphNodeSetParams(kernel, &p));
  p.reserved0[1] = 0;

  // instantiate with parameters: flags kept less Upload
  cudaGraphExec_t exec;
  cudaGraphInstantiateParams ip = {};
  ip.flags = cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagUseNodePriority;
  ip.uploadStream = 0;
  ip.errNode_out = kernel;
  ip.result_out = cudaGraphInstantiateError;
  CHECK(cudaGraphInstantiateWithParams(&exec, g, &ip));
  unsigned long long flags = 99;
  CHECK(cudaGraphExecGetFlags(exec, &flags));
  printf("instantiated: result %d error node %d flags %llu\n", (int)ip.result_out, ip.errNode_out != nullptr, flags);

  CHECK(cudaGraphLaunch(exec, 0));                        // row 0: x s2 + c
  CHECK(cudaStreamSynchronize(0));
  rows.insert(rows.end(), host.begin(), host.end());
  printf("symbol read back %g\n", c_back);

  float s3 = 0.5f, c2 = -1.5f;                             // row 1: x s3 + c2, changed in the executable graph only
  void *args3[] = {&dy, &dx, &n, &s3};
  p.kernel.kernelParams = args3;
  CHECK(cudaGraphExecNodeSetParams(exec, kernel, &p));
  CHECK(cudaGraphExecMemcpyNodeSetParamsToSymbol(exec, to_symbol, offset_value, &c2, sizeof(float), 0,
                                                 cudaMemcpyDefault));
  SAY("exec symbol params on a kernel node", cudaGraphExecMemcpyNodeSetParamsToSymbol(
      exec, kernel, offset_value, &c2, sizeof(float), 0, cudaMemcpyHostToDevice));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaStreamSynchronize(0));
  rows.insert(rows.end(), host.begin(), host.end());

  unsigned enabled = 7;                                   // row 2: the kernel disabled, y zeroed before
  CHECK(cudaGraphNodeSetEnabled(exec, kernel, 0));
  CHECK(cudaGraphNodeGetEnabled(exec, kernel, &enabled));
  printf("disabled kernel enabled %u\n", enabled);
  SAY("disable an event node", cudaGraphNodeSetEnabled(exec, record, 0));
  CHECK(cudaMemset(dy, 0, bytes));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaStreamSynchronize(0));
  rows.insert(rows.end(), host.begin(), host.end());
  CHECK(cudaGraphNodeSetEnabled(exec, kernel, 1));
  CHECK(cudaGraphNodeGetEnabled(exec, kernel, &enabled));
  printf("enabled again %u\n", enabled);

  // the graph's copy node now copies to `other` (3D parameters read, changed, set); a new executable graph
  CHECK(cudaGraphMemcpyNodeGetParams(copy, &copy3d));
  copy3d.dstPtr.ptr = other.data();
  CHECK(cudaGraphMemcpyNodeSetParams(copy, &copy3d));
  cudaGraphExec_t exec2;
  CHECK(cudaGraphInstantiate(&exec2, g, 0));
  CHECK(cudaGraphLaunch(exec2, 0));                       // row 3: x s2 + c into `other`
  CHECK(cudaStreamSynchronize(0));
  rows.insert(rows.end(), other.begin(), other.end());
  CHECK(cudaGraphLaunch(exec, 0));                        // the first executable graph still copies to host
  rows.insert(rows.end(), host.begin(), host.end());     // row 4: x s3 + c2

  // event nodes
  cudaEvent_t got;
  CHECK(cudaGraphEventRecordNodeGetEvent(record, &got));
  printf("record node event first %d\n", got == first);
  CHECK(cudaGraphEventRecordNodeSetEvent(record, second));
  CHECK(cudaGraphEventRecordNodeGetEvent(record, &got));
  printf("record node event second %d\n", got == second);
  SAY("wait event of a record node", cudaGraphEventWaitNodeGetEvent(record, &got));
  CHECK(cudaGraphExecEventRecordNodeSetEvent(exec, record, second));
  SAY("exec record event of a copy node", cudaGraphExecEventRecordNodeSetEvent(exec, copy, second));
  cudaGraph_t waits;
  cudaGraphNode_t wait;
  cudaGraphExec_t waits_exec;
  CHECK(cudaGraphCreate(&waits, 0));
  CHECK(cudaGraphAddEventWaitNode(&wait, waits, nullptr, 0, first));
  CHECK(cudaGraphEventWaitNodeSetEvent(wait, second));
  CHECK(cudaGraphEventWaitNodeGetEvent(wait, &got));
  printf("wait node event second %d\n", got == second);
  CHECK(cudaGraphInstantiate(&waits_exec, waits, 0));
  CHECK(cudaGraphExecEventWaitNodeSetEvent(waits_exec, wait, first));
  CHECK(cudaGraphLaunch(waits_exec, 0));

  // ids, containing graphs, clones
  unsigned graph_id = 0, exec_id = 0, local0 = 9, local1 = 9;
  unsigned long long tools0 = 0, tools1 = 0;
  CHECK(cudaGraphGetId(g, &graph_id));
  CHECK(cudaGraphExecGetId(exec, &exec_id));
  CHECK(cudaGraphNodeGetLocalId(to_symbol, &local0));
  CHECK(cudaGraphNodeGetLocalId(record, &local1));
  CHECK(cudaGraphNodeGetToolsId(to_symbol, &tools0));
  CHECK(cudaGraphNodeGetToolsId(record, &tools1));
  printf("ids: graph %d exec differs %d, local %u %u, tools differ %d\n", graph_id > 0, exec_id != graph_id,
         local0, local1, tools0 != tools1);
  cudaGraph_t holder, clone;
  CHECK(cudaGraphNodeGetContainingGraph(kernel, &holder));
  CHECK(cudaGraphClone(&clone, g));
  cudaGraphNode_t twin;
  CHECK(cudaGraphNodeFindInClone(&twin, kernel, clone));
  cudaGraphNodeType type;
  CHECK(cudaGraphNodeGetType(twin, &type));
  CHECK(cudaGraphNodeGetContainingGraph(twin, &holder));
  printf("clone: twin differs %d type %d in the clone %d\n", twin != kernel, (int)type, holder == clone);
  SAY("find in a graph not cloned", cudaGraphNodeFindInClone(&twin, kernel, waits));

  // instantiation of a cycle, with parameters
  cudaGraph_t cycle;
  cudaGraphNode_t e1, e2;
  CHECK(cudaGraphCreate(&cycle, 0));
  CHECK(cudaGraphAddEmptyNode(&e1, cycle, nullptr, 0));
  CHECK(cudaGraphAddEmptyNode(&e2, cycle, &e1, 1));
  CHECK(cudaGraphAddDependencies(cycle, &e2, &e1, nullptr, 1));
  ip = {};
  cudaGraphExec_t never;
  SAY("instantiate a cycle", cudaGraphInstantiateWithParams(&never, cycle, &ip));
  printf("cycle: result %d error node in it %d\n", (int)ip.result_out, ip.errNode_out == e1 || ip.errNode_out == e2);

  // a child graph changed in an executable graph: same shape taken, another refused
  cudaGraph_t parent, child1 = fill_graph(dy, n, 4.0f, false), child2 = fill_graph(dy, n, 9.0f, false),
              child3 = fill_graph(dy, n, 1.0f, true);
  cudaGraphNode_t child_node, out_node;
  cudaGraphExec_t parent_exec;
  CHECK(cudaGraphCreate(&parent, 0));
  CHECK(cudaGraphAddChildGraphNode(&child_node, parent, nullptr, 0, child1));
  CHECK(cudaGraphAddMemcpyNode1D(&out_node, parent, &child_node, 1, host.data(), dy, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaGraphNodeGetParams(child_node, &p));
  cudaGraph_t inner;
  CHECK(cudaGraphChildGraphNodeGetGraph(child_node, &inner));
  printf("generic child: type %d graph %d\n", (int)p.type, p.graph.graph == inner);
  CHECK(cudaGraphInstantiate(&parent_exec, parent, 0));
  CHECK(cudaGraphExecChildGraphNodeSetParams(parent_exec, child_node, child2));
  SAY("child graph of another shape", cudaGraphExecChildGraphNodeSetParams(parent_exec, child_node, child3));
  CHECK(cudaGraphLaunch(parent_exec, 0));                 // row 5: 9
  rows.insert(rows.end(), host.begin(), host.end());

  // kernel node attributes: a cluster shape that takes effect, copied to another node
  int *ranks, host_ranks[8];
  CHECK(cudaMalloc(&ranks, sizeof(host_ranks)));
  cudaGraph_t clusters;
  cudaGraphNode_t ranked, ranked2, rank_copy;
  CHECK(cudaGraphCreate(&clusters, 0));
  void *rank_args[] = {&ranks};
  cudaKernelNodeParams rk = {};
  rk.func = (void *)cluster_rank; rk.gridDim = dim3(8); rk.blockDim = dim3(32); rk.kernelParams = rank_args;
  CHECK(cudaGraphAddKernelNode(&ranked, clusters, nullptr, 0, &rk));
  CHECK(cudaGraphAddKernelNode(&ranked2, clusters, &ranked, 1, &rk));
  CHECK(cudaGraphAddMemcpyNode1D(&rank_copy, clusters, &ranked2, 1, host_ranks, ranks, sizeof(host_ranks),
                                 cudaMemcpyDeviceToHost));
  cudaKernelNodeAttrValue value = {}, read_back = {};
  value.clusterDim.x = 4; value.clusterDim.y = 1; value.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(ranked, cudaKernelNodeAttributeClusterDimension, &value));
  CHECK(cudaGraphKernelNodeCopyAttributes(ranked2, ranked));
  CHECK(cudaGraphKernelNodeGetAttribute(ranked2, cudaKernelNodeAttributeClusterDimension, &read_back));
  printf("cluster attribute copied: %u %u %u\n", read_back.clusterDim.x, read_back.clusterDim.y,
         read_back.clusterDim.z);
  value.priority = 3;
  CHECK(cudaGraphKernelNodeSetAttribute(ranked, cudaKernelNodeAttributePriority, &value));
  CHECK(cudaGraphKernelNodeGetAttribute(ranked, cudaKernelNodeAttributePriority, &read_back));
  printf("priority attribute %d\n", read_back.priority);
  SAY("programmatic event on a node", cudaGraphKernelNodeSetAttribute(ranked, cudaLaunchAttributeProgrammaticEvent,
                                                                     &value));
  SAY("attribute of a copy node", cudaGraphKernelNodeGetAttribute(rank_copy, cudaKernelNodeAttributePriority,
                                                                  &read_back));
  cudaGraphExec_t clusters_exec;
  CHECK(cudaGraphInstantiate(&clusters_exec, clusters, 0));
  CHECK(cudaGraphLaunch(clusters_exec, 0));
  CHECK(cudaStreamSynchronize(0));
  printf("cluster ranks:");
  for (int r : host_ranks) printf(" %d", r);
  printf("\n");

  // user objects: the last reference, the caller's, a graph's or an executable graph's, runs the destructor
  int one = 1, ten = 10;
  cudaUserObject_t moved, shared;
  SAY("user object without the flag", cudaUserObjectCreate(&moved, &one, destroy, 1, 0));
  CHECK(cudaUserObjectCreate(&moved, &one, destroy, 1, cudaUserObjectNoDestructorSync));
  cudaGraph_t owner = fill_graph(dy, n, 1.0f, false);
  CHECK(cudaGraphRetainUserObject(owner, moved, 1, cudaGraphUserObjectMove));
  cudaGraphExec_t owner_exec;
  CHECK(cudaGraphInstantiate(&owner_exec, owner, 0));
  CHECK(cudaGraphDestroy(owner));
  printf("graph destroyed, its executable graph holds: destroyed %d\n", destroyed);
  CHECK(cudaGraphExecDestroy(owner_exec));
  printf("executable graph destroyed: destroyed %d\n", destroyed);
  CHECK(cudaUserObjectCreate(&shared, &ten, destroy, 2, cudaUserObjectNoDestructorSync));
  CHECK(cudaUserObjectRetain(shared, 1));
  CHECK(cudaUserObjectRelease(shared, 2));
  SAY("retain zero", cudaUserObjectRetain(shared, 0));
  cudaGraph_t keeper = fill_graph(dy, n, 1.0f, false), keeper_clone;
  CHECK(cudaGraphRetainUserObject(keeper, shared, 2, 0));
  CHECK(cudaGraphReleaseUserObject(keeper, shared, 1));
  SAY("release more than the graph owns", cudaGraphReleaseUserObject(keeper, shared, 5));
  CHECK(cudaUserObjectRelease(shared, 1));
  printf("caller's references gone, graph holds: destroyed %d\n", destroyed);
  cudaGraphNode_t keeper_child;
  CHECK(cudaGraphClone(&keeper_clone, keeper));
  CHECK(cudaGraphAddChildGraphNode(&keeper_child, parent, nullptr, 0, keeper));
  CHECK(cudaGraphDestroy(keeper));
  CHECK(cudaGraphDestroy(keeper_clone));
  printf("graph and clone destroyed, a child graph node's copy holds: destroyed %d\n", destroyed);
  CHECK(cudaGraphDestroyNode(keeper_child));
  printf("child graph node destroyed: destroyed %d\n", destroyed);

  write_file(argv[2], rows.data(), rows.size());
  printf("graph params done\n");
  return 0;
}
