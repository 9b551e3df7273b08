"""CUDA graphs, made by stream capture or node by node, instantiated, updated and launched, with CUDA's
error codes.

A graph is a list of nodes and the edges between them (each node's dependencies).

- **Capture.** cudaStreamBeginCapture makes a stream record its work instead of running it: kernel
  launches (their parameter bytes as they were at the launch call, as CUDA copies them), copies,
  memsets and cudaLaunchHostFunc each become a node that depends on the stream's node before
  (calls._captured: one stream's work is a chain; streams fork and join through events, below).
  A call that waits for the stream (cudaStreamSynchronize, cudaStreamQuery) is refused with
  cudaErrorStreamCaptureUnsupported and invalidates the capture.
- **By hand.** cudaGraphAdd{Kernel,Memcpy,Memcpy1D,Memset,Host,Empty,ChildGraph,EventRecord,
  EventWait}Node take their
  dependencies and their parameters, read when the node is added as CUDA reads them (a kernel's
  argument bytes, a copy's cudaMemcpy3DParms); cudaGraphAddNode takes any of those kinds (and
  memory allocation, free and conditional nodes) from the tagged union cudaGraphNodeParams;
  cudaGraphAddDependencies and RemoveDependencies edit the edges; the Get* queries report nodes,
  roots, edges and parameters.
- **Launch.** cudaGraphInstantiate makes an executable copy: later changes to the graph do not reach
  it, cudaGraphExec*NodeSetParams change the copy's nodes, and cudaGraphExecUpdate gives it the
  parameters of a graph of the same shape (node kinds and edges, node for node in the order they
  were added), else cudaErrorGraphExecUpdateFailure and why. cudaGraphLaunch runs the copy's nodes
  one at a time in an order that keeps every edge (the earliest added of the ready nodes first):
  for a graph whose independent branches do not race, that is the bytes the GPU's concurrent
  branches leave; a cycle fails at instantiation. Its kernels advance the program's clock on the
  stream the graph is launched on. Launched into a capturing stream, it is refused with
  cudaErrorStreamCaptureUnsupported and the capture is invalidated, as on an H100 (CUDA 13.0).
- **Conditional nodes** (IF, WHILE, SWITCH: runtime/graph_conditionals.py) hold body graphs; a
  launch runs those their handle's value picks, a value the graph's kernels set with
  cudaGraphSetConditional.

cudaMallocAsync and cudaFreeAsync on a capturing stream become memory allocation and free nodes:
the memory is allocated at the capture and stays at that address for every launch of the graph
(CUDA's graph-owned memory keeps one address for the graph too), so a captured free does not free.

cudaStreamBeginCaptureToGraph captures into an existing graph (a conditional node's body), after
the nodes it is given; while a capture runs, its graph is a graph the program can add nodes to
(cudaStreamGetCaptureInfo gives it and the stream's last nodes), and
cudaStreamUpdateCaptureDependencies sets or adds to the nodes the stream's next call follows.

Capture across streams: an event recorded in a capturing stream marks its last nodes; a stream
that waits for it joins the capture, its calls becoming nodes after those (a fork), and the origin
stream waiting for an event the joined stream recorded takes that branch back (a join).
cudaStreamEndCapture on the origin stream ends it for all of them; a branch not joined back is
cudaErrorStreamCaptureUnjoined.

Memory allocation nodes added by hand are the same graph-owned memory: allocated when the node is
added (its address written to the parameters' dptr, as CUDA does), kept at that address for every
launch; a free node frees nothing, and names a graph allocation or is cudaErrorInvalidValue. Freed
outside the graph (cudaFree, cudaFreeAsync), graph-owned memory stays where it is: CUDA maps it at
the same address for the graph's next launch.

cudaGraphAddNode refuses the node kinds warpsim does not simulate (external semaphores, batched
copies) with cudaErrorNotSupported, naming the kind once.

What is asked of nodes once made (their parameters in the generic and per-kind forms, nodes disabled
in an executable graph, ids, clones' nodes, cudaGraphInstantiateWithParams, kernel node attributes)
is runtime/graph_params.py, over the Node and Graph here: a disabled node runs as an empty node, and a
kernel node whose attributes shape its launch (a cluster shape, cooperative) launches through
prepare_launch again with them. User objects (runtime/user_objects.py): a graph owns references, its
copies (_clone) retain their own, and a destroyed graph (_forget) or executable graph gives them back.

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

import ctypes
import heapq
import sys
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from . import graph_conditionals, launch_attributes, user_objects
from .calls import (HOST_FUNCTION, INVALID_VALUE, MEMCPY_KINDS, NODE_CONDITIONAL, NODE_EMPTY, NODE_EVENT_RECORD,
                    NODE_GRAPH, NODE_HOST, NODE_KERNEL, NODE_KIND_NAMES, NODE_MEM_ALLOC, NODE_MEM_FREE, NODE_MEMCPY,
                    NODE_MEMSET, NODE_WAIT_EVENT, SUCCESS, _allocate, _copy, _known_stream, _now_or_captured,
                    _refused_while_capturing, _run_kernel, _say_once, _time_memset, _write, call,
                    kernel_node_parameters, prepare_launch)
from .errors import CODES
from .hoststructs import layout, offsets, read
from .memory3d import Refusal, _copy_3d, plan

INVALID_HANDLE = CODES["cudaErrorInvalidResourceHandle"]
UPDATE_FAILURE = CODES["cudaErrorGraphExecUpdateFailure"]
GRAPH_FLAGS = 0                      # cudaGraphCreate takes no flags (it must be 0)
INSTANTIATE_FLAGS = 0x1 | 0x2 | 0x4 | 0x8   # AutoFreeOnLaunch, Upload, DeviceLaunch, UseNodePriority
CAPTURE_MODES = range(3)             # cudaStreamCaptureModeGlobal, ThreadLocal, Relaxed
LEGACY_STREAMS = (0, 1)              # the NULL stream and cudaStreamLegacy cannot capture
CAPTURE_NONE, CAPTURE_ACTIVE, CAPTURE_INVALIDATED = 0, 1, 2      # cudaStreamCaptureStatus
STREAM_CAPTURE_UNSUPPORTED = CODES["cudaErrorStreamCaptureUnsupported"]
# cudaGraphExecUpdateResult
UPDATE_SUCCESS, UPDATE_TOPOLOGY_CHANGED, UPDATE_NODE_TYPE_CHANGED, UPDATE_PARAMETERS_CHANGED = 0, 2, 3, 5
UPDATE_NOT_SUPPORTED = 6
CAPTURE_ADD_DEPENDENCIES, CAPTURE_SET_DEPENDENCIES = 0, 1     # cudaStreamUpdateCaptureDependenciesFlags
OWNERSHIP_CLONE, OWNERSHIP_MOVE = 0, 1                       # cudaGraphChildGraphNodeOwnership
EDGE_DATA_BYTES = 8                  # a cudaGraphEdgeData: ports and type, all default (0) here
MEMSET_ELEMENTS = {1: np.uint8, 2: np.uint16, 4: np.uint32}


@dataclass(eq=False)
class Node:
    """One node: its cudaGraphNodeType, what running it does (stream -> cudaError_t), the parameters
    the Get*Params calls report, the nodes it depends on, and for a child graph node its graph (for a
    conditional node, its bodies; its parameters are its handle, type and size)."""
    kind: int
    run: Callable[[int], int] | None
    params: tuple = ()
    dependencies: list = field(default_factory=list)
    handle: int = 0
    child: "Graph | None" = None
    kept: object = None              # C buffers a node's parameters point into (a copy's struct, argument bytes)
    bodies: list = field(default_factory=list)   # a conditional node's body graphs
    enabled: bool = True             # an executable graph's copy: cudaGraphNodeSetEnabled(0) runs it as an empty node
    attributes: dict = field(default_factory=dict)   # a kernel node's cudaLaunchAttributeValue bytes by id

    def nested(self) -> list:
        """The graphs inside the node: its child graph, or its conditional bodies."""
        return [self.child] if self.child is not None else self.bodies


@dataclass(eq=False)
class Graph:
    nodes: list = field(default_factory=list)    # Node objects in the order they were added
    handle: int = 0
    parent: "Graph | None" = None    # of a conditional node's body: the graph that holds the node
    id: int = 0                      # cudaGraphGetId
    user_objects: dict = field(default_factory=dict)   # user object handle -> references the graph owns
    local_ids: dict = field(default_factory=dict)      # node -> cudaGraphNodeGetLocalId, in the order added
    originals: dict = field(default_factory=dict)      # of a cudaGraphClone: original node handle -> its copy


@dataclass(eq=False)
class Capture:
    """A stream capture: its graph, the stream that began it, and for each stream taking part (the
    origin, and those that waited for an event recorded in it), the nodes its next call follows."""
    graph: Graph
    origin: int
    tails: dict
    known: dict                      # the runtime's node handles (_nodes): captured nodes join them
    id: int = 0
    existing: bool = False           # capturing into the program's graph (cudaStreamBeginCaptureToGraph)
    invalidated: bool = False        # a refused call during the capture
    active: bool = True

    def add(self, stream: int, kind: int, work, handle: int, params: tuple = (), kept=None) -> None:
        """A call a capturing stream took: a node after the stream's last ones."""
        node = Node(kind, lambda launched_on: work(), params, self.tail(stream), handle, kept=kept)
        self.graph.nodes.append(node)
        self.known[handle] = (node, self.graph)
        self.tails[stream] = [node]

    def tail(self, stream: int) -> list:
        return list(self.tails.get(stream, ()))

    def wait(self, stream: int, nodes: list) -> None:
        """The stream's next node follows these nodes too (it waits for an event recorded in this
        capture, or cudaStreamUpdateCaptureDependencies adds them)."""
        tail = self.tail(stream)
        self.tails[stream] = tail + [n for n in nodes if n not in tail]

    def unjoined(self) -> bool:
        """Whether a stream that joined has work the origin stream's last nodes do not follow."""
        seen, stack = set(), self.tail(self.origin)
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(node.dependencies)
        return any(n not in seen for stream, nodes in self.tails.items() if stream != self.origin for n in nodes)


@dataclass(eq=False)
class GraphExec:
    nodes: list                      # copies of the graph's nodes, in the order they were added
    order: list                      # the same in launch order
    of: dict                         # a graph node's handle (at any depth) -> its copy
    flags: int = 0                   # the instantiation flags (cudaGraphExecGetFlags), less Upload
    id: int = 0                      # cudaGraphExecGetId
    user_objects: dict = field(default_factory=dict)   # the references it holds (its graph's, copied)


def _graphs(context) -> dict:
    return context.__dict__.setdefault("graphs", {})


def _graph_execs(context) -> dict:
    return context.__dict__.setdefault("graph_execs", {})


def _nodes(context) -> dict:
    """node handle -> (Node, its Graph)."""
    return context.__dict__.setdefault("graph_nodes", {})


def _new_id(context) -> int:
    """The next graph or executable graph id (cudaGraphGetId, cudaGraphExecGetId): one count for both."""
    context.__dict__["_graph_ids"] = context.__dict__.get("_graph_ids", 0) + 1
    return context.__dict__["_graph_ids"]


def _register(context, graph: Graph) -> int:
    """Give a graph (and its nodes, and its child graphs') handles the program can hold."""
    if not graph.handle:
        graph.handle = context.new_handle()
    if not graph.id:
        graph.id = _new_id(context)
    _graphs(context)[graph.handle] = graph
    for node in graph.nodes:
        if not node.handle:
            node.handle = context.new_handle()
        _nodes(context)[node.handle] = (node, graph)
        for nested in node.nested():
            _register(context, nested)
    return graph.handle


def _forget(context, graph: Graph) -> None:
    """Drop a destroyed graph's handle, its nodes', its child graphs' and conditional bodies', its
    condition handles, and the user object references they own (user_objects.py)."""
    _graphs(context).pop(graph.handle, None)
    graph_conditionals.forget_handles(context, graph)
    user_objects.release(context, graph.user_objects)
    graph.user_objects = {}
    for node in graph.nodes:
        _nodes(context).pop(node.handle, None)
        for nested in node.nested():
            _forget(context, nested)


def _within(graph: Graph):
    """The graph and the graphs inside its nodes (child graphs, conditional bodies), at any depth."""
    yield graph
    for node in graph.nodes:
        for nested in node.nested():
            yield from _within(nested)


def _retain_copies(context, copy: Graph) -> Graph:
    """A graph just copied (_clone) owns references of its own to the user objects the original owned."""
    for graph in _within(copy):
        user_objects.retain(context, graph.user_objects)
    return copy


def _node(context, handle: int):
    """(Node, Graph) of a node handle, or None."""
    return _nodes(context).get(handle)


def _clone(graph: Graph) -> tuple[Graph, dict]:
    """A copy of the graph with copies of its nodes (child graphs and conditional bodies copied too);
    and node -> copy, for the nodes of those too."""
    copies = {}
    for node in graph.nodes:
        nested = [_clone(inner) for inner in node.nested()]
        for _, inner_copies in nested:
            copies.update(inner_copies)
        copies[node] = replace(node, dependencies=[], handle=0,
                               child=nested[0][0] if node.child is not None else None,
                               bodies=[inner for inner, _ in nested] if node.bodies else [],
                               attributes=dict(node.attributes))
    for node in graph.nodes:
        copies[node].dependencies = [copies[d] for d in node.dependencies]
    return Graph([copies[n] for n in graph.nodes], user_objects=dict(graph.user_objects)), copies


def _nested_cycle(graph: Graph) -> bool:
    """Whether the edges of a graph's child graphs or conditional bodies, at any depth, form a cycle."""
    nested = [inner for node in graph.nodes for inner in node.nested()]
    return any(_launch_order(g.nodes) is None or _nested_cycle(g) for g in nested)


def _launch_order(nodes: list) -> list | None:
    """The nodes in an order that keeps every edge, the earliest added of the ready nodes first;
    None for a cycle."""
    order = _partial_order(nodes)
    return order if len(order) == len(nodes) else None


def _partial_order(nodes: list) -> list:
    """_launch_order's nodes, short of those on or after a cycle."""
    index = {node: k for k, node in enumerate(nodes)}
    waiting = {node: len(node.dependencies) for node in nodes}
    dependents: dict = {node: [] for node in nodes}
    for node in nodes:
        for d in node.dependencies:
            dependents[d].append(node)
    ready = [index[n] for n in nodes if not waiting[n]]
    heapq.heapify(ready)
    order = []
    while ready:
        node = nodes[heapq.heappop(ready)]
        order.append(node)
        for after in dependents[node]:
            waiting[after] -= 1
            if not waiting[after]:
                heapq.heappush(ready, index[after])
    return order


def _run(context, order: list, stream: int) -> int:
    def run_graph(graph: Graph) -> int:
        return _run(context, _launch_order(graph.nodes), stream)

    for node in order:
        if not node.enabled:                # cudaGraphNodeSetEnabled(0): an empty node
            code = SUCCESS
        elif node.child is not None:
            code = run_graph(node.child)
        elif node.kind == NODE_CONDITIONAL:
            code = graph_conditionals.run_conditional(context, node, run_graph)
        elif node.kind == NODE_KERNEL and launch_attributes.shapes_launch(node.attributes):
            code = _run_with_attributes(context, node, stream)
        else:
            code = node.run(stream) if node.run is not None else SUCCESS
        if code:
            return code
    return SUCCESS


def _run_with_attributes(context, node: Node, stream: int) -> int:
    """A kernel node whose attributes change its launch (a cluster shape, a cooperative launch): launched
    from its parameters, read again through prepare_launch as any launch's, with those options."""
    options = launch_attributes.node_options(node.attributes, context.events)
    function, grid, block, shared, arguments, _ = node.params
    prepared = prepare_launch(context, function, grid, block, arguments, shared, options.cooperative)
    if isinstance(prepared, int):
        return prepared
    loaded, name, argument_bytes, cooperative = prepared
    return _run_kernel(context, loaded, name, grid, block, argument_bytes, shared, stream, cooperative,
                       options.cluster)


def _launch(context, graph_exec: GraphExec, stream: int) -> int:
    """Run an executable graph's nodes, its conditional nodes' handles set to their defaults and open
    for its kernels to set (graph_conditionals.launching)."""
    with graph_conditionals.launching(context, graph_exec.nodes):
        return _run(context, graph_exec.order, stream)


def _write_handles(count_out: int, *lists) -> None:
    """CUDA's way of reporting lists of handles, given as (array address, handles) pairs of one length:
    with no arrays, how many; else up to *count_out of each, the rest of each array zeroed, and
    *count_out set to how many there are."""
    if lists and lists[0][0]:
        capacity = read(count_out, "Q")[0]
        for out, handles in lists:
            for k in range(capacity):
                _write(out + 8 * k, "Q", handles[k] if k < len(handles) else 0)
    _write(count_out, "Q", len(lists[0][1]) if lists else 0)


def _zero_edge_data(out: int, count: int) -> None:
    if out:
        ctypes.memset(out, 0, EDGE_DATA_BYTES * count)


def _handles_at(address: int, count: int) -> list:
    return [read(address + 8 * k, "Q")[0] for k in range(count)]


# --- graphs -----------------------------------------------------------------------------------

@call()
def cudaGraphCreate(context, out, flags):
    if not out or flags != GRAPH_FLAGS:
        return context.fail(INVALID_VALUE)
    _write(out, "Q", _register(context, Graph()))
    return SUCCESS


@call()
def cudaGraphDestroy(context, graph):
    found = _graphs(context).get(graph)
    if found is None:
        return context.fail(INVALID_VALUE)
    _forget(context, found)
    return SUCCESS


@call()
def cudaGraphClone(context, out, graph):
    found = _graphs(context).get(graph)
    if found is None or not out:
        return context.fail(INVALID_VALUE)
    refused = graph_conditionals.refuse_with_conditionals(context, found, "cloned (cudaGraphClone)")
    if refused:
        return refused
    copy, copies = _clone(found)
    copy.originals = {node.handle: twin for node, twin in copies.items()}    # cudaGraphNodeFindInClone
    _write(out, "Q", _register(context, _retain_copies(context, copy)))
    return SUCCESS


@call()
def cudaGraphGetNodes(context, graph, nodes_out, count_out):
    found = _graphs(context).get(graph)
    if found is None or not count_out:
        return context.fail(INVALID_VALUE)
    _write_handles(count_out, (nodes_out, [n.handle for n in found.nodes]))
    return SUCCESS


@call()
def cudaGraphGetRootNodes(context, graph, nodes_out, count_out):
    found = _graphs(context).get(graph)
    if found is None or not count_out:
        return context.fail(INVALID_VALUE)
    _write_handles(count_out, (nodes_out, [n.handle for n in found.nodes if not n.dependencies]))
    return SUCCESS


@call()
def cudaGraphGetEdges(context, graph, from_out, to_out, edge_data_out, count_out):
    found = _graphs(context).get(graph)
    if found is None or not count_out or bool(from_out) != bool(to_out):
        return context.fail(INVALID_VALUE)
    edges = [(d.handle, n.handle) for n in found.nodes for d in n.dependencies]
    if from_out:
        _zero_edge_data(edge_data_out, min(len(edges), read(count_out, "Q")[0]))
    _write_handles(count_out, (from_out, [a for a, _ in edges]), (to_out, [b for _, b in edges]))
    return SUCCESS


@call()
def cudaGraphDebugDotPrint(context, graph, path, flags):
    """The graph in Graphviz's DOT language: a node per graph node (its kind and, for a kernel, its
    name and launch shape), an arrow per edge."""
    found = _graphs(context).get(graph)
    if found is None or not path:
        return context.fail(INVALID_VALUE)
    lines = ["digraph warpsim_graph {"]
    for k, node in enumerate(found.nodes):
        label = NODE_KIND_NAMES[node.kind]
        if node.kind == NODE_KERNEL and node.params:
            name, grid, block = node.params[5], node.params[1], node.params[2]
            label = f"{name}\\n<<<{grid}, {block}>>>"
        lines.append(f'  n{k} [label="{label}"];')
    at = {node: k for k, node in enumerate(found.nodes)}
    lines += [f"  n{at[d]} -> n{at[n]};" for n in found.nodes for d in n.dependencies]
    try:
        with open(ctypes.string_at(path).decode(errors="replace"), "w") as out:
            out.write("\n".join(lines + ["}"]) + "\n")
    except OSError:
        return context.fail(CODES["cudaErrorUnknown"])
    return SUCCESS


# --- nodes ------------------------------------------------------------------------------------

def _nodes_of(context, graph: Graph, handles: int, count: int) -> list | None:
    """The nodes of an array of `count` distinct node handles of `graph`, or None."""
    if count and not handles:
        return None
    found = [_node(context, h) for h in (_handles_at(handles, count) if count else [])]
    if any(f is None or f[1] is not graph for f in found) or len({id(f[0]) for f in found}) != len(found):
        return None
    return [node for node, _ in found]


def _add(context, out, graph, dependencies, count, make) -> int:
    """Add the node make() gives (a Node, or the cudaError_t) to a graph after its dependencies."""
    found = _graphs(context).get(graph)
    dependencies = _nodes_of(context, found, dependencies, count) if found is not None else None
    if not out or dependencies is None:
        return context.fail(INVALID_VALUE)
    node = make()
    if isinstance(node, int):
        return node
    node.dependencies = dependencies
    node.handle = context.new_handle()
    found.nodes.append(node)
    _nodes(context)[node.handle] = (node, found)
    _write(out, "Q", node.handle)
    return SUCCESS


def _kernel_node(context, params: int, struct: str = "ws_kernel_node_params_layout"):
    """A kernel node of a cudaKernelNodeParams (or, struct naming its layout, a cudaKernelNodeParamsV2)
    with its arguments' bytes read now; or the cudaError_t."""
    if not params:
        return context.fail(INVALID_VALUE)
    from .native import KERNEL_NODE_FIELDS
    at = offsets(struct, KERNEL_NODE_FIELDS)
    function = read(params + at["func"], "Q")[0]
    grid = read(params + at["gridDim"], "III")
    block = read(params + at["blockDim"], "III")
    shared = read(params + at["sharedMemBytes"], "I")[0]
    args, extra = read(params + at["kernelParams"], "Q")[0], read(params + at["extra"], "Q")[0]
    if extra and not args:
        _say_once(context, "kernel node extra", "warpsim: cudaGraphAddKernelNode: kernel arguments in the `extra` "
                  "form are not simulated (pass kernelParams): cudaErrorNotSupported")
        return context.fail(CODES["cudaErrorNotSupported"])
    prepared = prepare_launch(context, function, grid, block, args, shared)
    if isinstance(prepared, int):
        return prepared or context.fail(INVALID_VALUE)
    loaded, name, argument_bytes, cooperative = prepared
    params, kept = kernel_node_parameters(function, grid, block, shared, loaded, name, argument_bytes)

    def run(stream):
        return _run_kernel(context, loaded, name, grid, block, argument_bytes, shared, stream, cooperative, None)
    return Node(NODE_KERNEL, run, params, kept=kept)


def _memset_node(context, params: int, struct: str = "ws_memset_params_layout"):
    if not params:
        return context.fail(INVALID_VALUE)
    from .native import MEMSET_PARAMS_FIELDS
    at = offsets(struct, MEMSET_PARAMS_FIELDS)
    dst, pitch, width, height = (read(params + at[f], "Q")[0] for f in ("dst", "pitch", "width", "height"))
    value, element = read(params + at["value"], "I")[0], read(params + at["elementSize"], "I")[0]
    if element not in MEMSET_ELEMENTS or not dst or (height > 1 and pitch < width * element):
        return context.fail(INVALID_VALUE)
    row = np.full(width, value, dtype=MEMSET_ELEMENTS[element]).tobytes()

    def run(stream):
        try:
            for y in range(height):
                context.device.memory.write_bytes(dst + y * pitch, np.frombuffer(row, dtype=np.uint8))
        except ValueError as error:
            print(f"warpsim: memset node: {error}", file=sys.stderr)
            return context.fail(INVALID_VALUE)
        _time_memset(context, len(row) * height)
        return SUCCESS
    return Node(NODE_MEMSET, run, (dst, pitch, value, element, width, height))


def _host_node(context, params: int):
    if not params:
        return context.fail(INVALID_VALUE)
    function, user_data = read(params, "QQ")         # cudaHostNodeParams[V2]: fn, userData
    if not function:
        return context.fail(INVALID_VALUE)
    return Node(NODE_HOST, lambda stream: HOST_FUNCTION(function)(user_data) or SUCCESS, (function, user_data))


def _memcpy_1d_node(context, dst, src, count, kind):
    if kind not in MEMCPY_KINDS:
        return context.fail(CODES["cudaErrorInvalidMemcpyDirection"])
    if count and (not dst or not src):
        return context.fail(INVALID_VALUE)
    return Node(NODE_MEMCPY, lambda stream: _copy(context, dst, src, count, stream), (dst, src, count, kind))


@call()
def cudaGraphAddKernelNode(context, out, graph, dependencies, count, params):
    return _add(context, out, graph, dependencies, count, lambda: _kernel_node(context, params))


@call()
def cudaGraphAddMemsetNode(context, out, graph, dependencies, count, params):
    return _add(context, out, graph, dependencies, count, lambda: _memset_node(context, params))


@call()
def cudaGraphAddHostNode(context, out, graph, dependencies, count, params):
    return _add(context, out, graph, dependencies, count, lambda: _host_node(context, params))


@call()
def cudaGraphAddEmptyNode(context, out, graph, dependencies, count):
    return _add(context, out, graph, dependencies, count, lambda: Node(NODE_EMPTY, None))


def event_record(context, event: int):
    """What an event record node does when it runs: the graph's work before it is done."""
    def record(stream=0):
        context.events[event].gpu_ms = context.event_ms(stream)
        context.events[event].captured = None
        return SUCCESS
    return record


def _event_node(context, kind: int, event: int):
    if event not in context.events:
        return context.fail(INVALID_VALUE)
    return Node(kind, event_record(context, event) if kind == NODE_EVENT_RECORD else None, (event,))


@call()
def cudaGraphAddEventRecordNode(context, out, graph, dependencies, count, event):
    return _add(context, out, graph, dependencies, count, lambda: _event_node(context, NODE_EVENT_RECORD, event))


@call()
def cudaGraphAddEventWaitNode(context, out, graph, dependencies, count, event):
    """Waits for the event's work, which is done: warpsim runs every call's work before it returns."""
    return _add(context, out, graph, dependencies, count, lambda: _event_node(context, NODE_WAIT_EVENT, event))


def _mem_alloc_node(context, params: int, struct: str = "ws_mem_alloc_node_layout"):
    """A memory allocation node of a cudaMemAllocNodeParams (or, struct naming its layout, a
    cudaMemAllocNodeParamsV2): the graph-owned allocation made now."""
    from .memory_pools import own_graph_memory, pool_properties
    from .native import MEM_ALLOC_NODE_FIELDS
    if not params:
        return context.fail(INVALID_VALUE)
    at = offsets(struct, MEM_ALLOC_NODE_FIELDS)
    _, _, refused = pool_properties(params + at["poolProps"], host_code=CODES["cudaErrorNotSupported"])
    (size,) = read(params + at["bytesize"], "Q")
    if refused or not size:
        return context.fail(refused or INVALID_VALUE)
    code = _allocate(context, params + at["dptr"], size)
    if code != SUCCESS:
        return code
    struct_size = layout(struct, 0)[0]
    kept = ctypes.create_string_buffer(ctypes.string_at(params, struct_size), struct_size)
    (address,) = read(params + at["dptr"], "Q")
    own_graph_memory(context, address, size)
    return Node(NODE_MEM_ALLOC, lambda stream: context.graph_memory_allocated(address), (address, size), kept=kept)


@call()
def cudaGraphAddMemAllocNode(context, out, graph, dependencies, count, params):
    return _add(context, out, graph, dependencies, count, lambda: _mem_alloc_node(context, params))


def _mem_free_node(context, address: int):
    if address not in context.graph_allocations:
        return context.fail(INVALID_VALUE)
    return Node(NODE_MEM_FREE, lambda stream: context.free_graph_memory(address), (address,))


@call()
def cudaGraphAddMemFreeNode(context, out, graph, dependencies, count, address):
    return _add(context, out, graph, dependencies, count, lambda: _mem_free_node(context, address))


@call()
def cudaGraphMemAllocNodeGetParams(context, node, out):
    found = _of_kind(context, node, NODE_MEM_ALLOC)
    if found is None or not out or found.kept is None:
        return context.fail(INVALID_VALUE)
    ctypes.memmove(out, found.kept, len(found.kept))
    return SUCCESS


@call()
def cudaGraphMemFreeNodeGetParams(context, node, out):
    found = _of_kind(context, node, NODE_MEM_FREE)
    if found is None or not out or not found.params:
        return context.fail(INVALID_VALUE)
    _write(out, "Q", found.params[0])
    return SUCCESS


@call()
def cudaDeviceGraphMemTrim(context, device):
    """Gives graph memory not in use back to the OS: warpsim's stays with its graphs."""
    return SUCCESS if device == 0 else context.fail(CODES["cudaErrorInvalidDevice"])


@call()
def cudaGraphAddMemcpyNode1D(context, out, graph, dependencies, count, dst, src, nbytes, kind):
    return _add(context, out, graph, dependencies, count, lambda: _memcpy_1d_node(context, dst, src, nbytes, kind))


def _memcpy_node(context, parms: int, call_name: str):
    """A copy node of a cudaMemcpy3DParms (its bytes kept), or the cudaError_t."""
    if not parms:
        return context.fail(INVALID_VALUE)
    try:
        plan(parms, context.cuda_arrays)            # refused now, as CUDA refuses the node
    except Refusal as refusal:
        print(f"warpsim: {call_name}: {refusal}", file=sys.stderr)
        return context.fail(CODES[refusal.error])
    size = layout("ws_memcpy3d_layout", 0)[0]
    kept = ctypes.create_string_buffer(ctypes.string_at(parms, size), size)
    return Node(NODE_MEMCPY, lambda stream: _copy_3d(context, "a memcpy node", ctypes.addressof(kept), stream),
                (), kept=kept)


@call()
def cudaGraphAddMemcpyNode(context, out, graph, dependencies, count, parms):
    return _add(context, out, graph, dependencies, count, lambda: _memcpy_node(context, parms,
                                                                                "cudaGraphAddMemcpyNode"))


def _child_graph_node(context, graph: int, child: int, ownership: int = OWNERSHIP_CLONE):
    """A child graph node running a copy of `child` (or `child` itself, with cudaGraphAddNode's
    cudaGraphChildGraphOwnershipMove); a graph with conditional nodes is refused."""
    found = _graphs(context).get(child)
    if found is None or child == graph or ownership not in (OWNERSHIP_CLONE, OWNERSHIP_MOVE):
        return context.fail(INVALID_VALUE)
    refused = graph_conditionals.refuse_with_conditionals(context, found, "a child graph")
    if refused:
        return refused
    copy = found if ownership == OWNERSHIP_MOVE else _retain_copies(context, _clone(found)[0])
    _register(context, copy)
    return Node(NODE_GRAPH, None, (), child=copy)


@call()
def cudaGraphAddChildGraphNode(context, out, graph, dependencies, count, child):
    return _add(context, out, graph, dependencies, count, lambda: _child_graph_node(context, graph, child))


def _conditional_node(context, graph: Graph, params: int, at: dict):
    """The conditional node of a cudaGraphNodeParams' `conditional` member, with its empty bodies,
    registered, their handles written to phGraph_out; or the cudaError_t (graph_conditionals)."""
    (handle,) = read(params + at["conditional.handle"], "Q")
    (kind,) = read(params + at["conditional.type"], "i")
    (size,) = read(params + at["conditional.size"], "I")
    (ctx,) = read(params + at["conditional.ctx"], "Q")
    refused = graph_conditionals.node_refusal(context, graph, handle, kind, size, ctx)
    if refused:
        return refused
    bodies = [Graph(parent=graph) for _ in range(size)]
    for body in bodies:
        _register(context, body)
    array = (ctypes.c_uint64 * size)(*[body.handle for body in bodies])      # CUDA's, living with the node
    _write(params + at["conditional.phGraph_out"], "Q", ctypes.addressof(array))
    return Node(NODE_CONDITIONAL, None, (handle, kind, size), bodies=bodies, kept=array)


@call()
def cudaGraphConditionalHandleCreate(context, out, graph, default, flags):
    return graph_conditionals.create_handle(context, out, _graphs(context).get(graph), 0, default, flags)


@call()
def cudaGraphConditionalHandleCreate_v2(context, out, graph, ctx, default, flags):
    return graph_conditionals.create_handle(context, out, _graphs(context).get(graph), ctx, default, flags)


def _node_of_params(context, graph: int, params: int):
    """The node a cudaGraphNodeParams describes (its `type` picks the union member), or the cudaError_t."""
    from .native import NODE_PARAMS_FIELDS
    at = offsets("ws_graph_node_params_layout", NODE_PARAMS_FIELDS)
    (kind,) = read(params + at["type"], "i")
    if any(read(params + at["reserved0"], "iii")) or read(params + at["reserved2"], "q")[0]:
        return context.fail(INVALID_VALUE)              # CUDA: reserved words must be zero
    made = {
        NODE_KERNEL: lambda: _kernel_node(context, params + at["kernel"], "ws_kernel_node_params_v2_layout"),
        NODE_MEMCPY: lambda: _memcpy_node(context, params + at["memcpy.copyParams"], "cudaGraphAddNode"),
        NODE_MEMSET: lambda: _memset_node(context, params + at["memset"], "ws_memset_params_v2_layout"),
        NODE_HOST: lambda: _host_node(context, params + at["host"]),
        NODE_GRAPH: lambda: _child_graph_node(context, graph, read(params + at["graph.graph"], "Q")[0],
                                              read(params + at["graph.ownership"], "i")[0]),
        NODE_EMPTY: lambda: Node(NODE_EMPTY, None),
        NODE_WAIT_EVENT: lambda: _event_node(context, NODE_WAIT_EVENT, read(params + at["eventWait.event"], "Q")[0]),
        NODE_EVENT_RECORD: lambda: _event_node(context, NODE_EVENT_RECORD,
                                               read(params + at["eventRecord.event"], "Q")[0]),
        NODE_MEM_ALLOC: lambda: _mem_alloc_node(context, params + at["alloc"], "ws_mem_alloc_node_v2_layout"),
        NODE_MEM_FREE: lambda: _mem_free_node(context, read(params + at["free.dptr"], "Q")[0]),
        NODE_CONDITIONAL: lambda: _conditional_node(context, _graphs(context)[graph], params, at),
    }.get(kind)
    if made is not None:
        return made()
    if kind not in NODE_KIND_NAMES:
        return context.fail(INVALID_VALUE)
    _say_once(context, f"node kind {kind}", f"warpsim: cudaGraphAddNode: {NODE_KIND_NAMES[kind]} nodes "
              f"(cudaGraphNodeType {kind}) are not simulated: cudaErrorNotSupported")
    return context.fail(CODES["cudaErrorNotSupported"])


@call()
def cudaGraphAddNode(context, out, graph, dependencies, edge_data, count, params):
    """Adds a node of any kind, described by the tagged union cudaGraphNodeParams (edge data: the
    default edges warpsim's graphs have)."""
    if not params:
        return context.fail(INVALID_VALUE)
    return _add(context, out, graph, dependencies, count, lambda: _node_of_params(context, graph, params))


@call()
def cudaGraphChildGraphNodeGetGraph(context, node, out):
    found = _node(context, node)
    if found is None or found[0].child is None or not out:
        return context.fail(INVALID_VALUE)
    _write(out, "Q", found[0].child.handle)
    return SUCCESS


@call()
def cudaGraphDestroyNode(context, node):
    found = _nodes(context).pop(node, None)
    if found is None:
        return context.fail(INVALID_VALUE)
    gone, graph = found
    graph.nodes.remove(gone)
    for other in graph.nodes:
        other.dependencies = [d for d in other.dependencies if d is not gone]
    for nested in gone.nested():
        _forget(context, nested)
    return SUCCESS


@call()
def cudaGraphNodeGetType(context, node, out):
    found = _node(context, node)
    if found is None or not out:
        return context.fail(INVALID_VALUE)
    _write(out, "i", found[0].kind)
    return SUCCESS


def _edges(context, graph, from_, to, count):
    """[(from node, to node), ...] of two arrays of node handles of one graph, or None."""
    found = _graphs(context).get(graph)
    if found is None or (count and (not from_ or not to)):
        return None, None
    pairs = []
    for a, b in zip(_handles_at(from_, count), _handles_at(to, count)):
        x, y = _node(context, a), _node(context, b)
        if x is None or y is None or x[1] is not found or y[1] is not found or a == b:
            return None, None
        pairs.append((x[0], y[0]))
    return found, pairs


@call()
def cudaGraphAddDependencies(context, graph, from_, to, edge_data, count):
    found, pairs = _edges(context, graph, from_, to, count)
    if found is None or any(a in b.dependencies for a, b in pairs) or len(set(pairs)) != len(pairs):
        return context.fail(INVALID_VALUE)
    for a, b in pairs:
        b.dependencies.append(a)
    return SUCCESS


@call()
def cudaGraphRemoveDependencies(context, graph, from_, to, edge_data, count):
    found, pairs = _edges(context, graph, from_, to, count)
    if found is None or any(a not in b.dependencies for a, b in pairs):
        return context.fail(INVALID_VALUE)
    for a, b in pairs:
        b.dependencies.remove(a)
    return SUCCESS


@call()
def cudaGraphNodeGetDependencies(context, node, out, edge_data_out, count_out):
    found = _node(context, node)
    if found is None or not count_out:
        return context.fail(INVALID_VALUE)
    handles = [d.handle for d in found[0].dependencies]
    _zero_edge_data(edge_data_out, min(len(handles), read(count_out, "Q")[0]) if out else 0)
    _write_handles(count_out, (out, handles))
    return SUCCESS


@call()
def cudaGraphNodeGetDependentNodes(context, node, out, edge_data_out, count_out):
    found = _node(context, node)
    if found is None or not count_out:
        return context.fail(INVALID_VALUE)
    this, graph = found
    handles = [n.handle for n in graph.nodes if this in n.dependencies]
    _zero_edge_data(edge_data_out, min(len(handles), read(count_out, "Q")[0]) if out else 0)
    _write_handles(count_out, (out, handles))
    return SUCCESS


# --- node parameters ----------------------------------------------------------------------------

def write_kernel_params(out: int, node: Node, struct: str = "ws_kernel_node_params_layout") -> None:
    """A kernel node's parameters into a cudaKernelNodeParams (struct: or the layout of the V2 struct)."""
    from .native import KERNEL_NODE_FIELDS
    at = offsets(struct, KERNEL_NODE_FIELDS)
    function, grid, block, shared, arguments, _ = node.params
    _write(out + at["func"], "Q", function)
    _write(out + at["gridDim"], "III", *grid)
    _write(out + at["blockDim"], "III", *block)
    _write(out + at["sharedMemBytes"], "I", shared)
    _write(out + at["kernelParams"], "Q", arguments)
    _write(out + at["extra"], "Q", 0)


def _of_kind(context, node, kind):
    found = _node(context, node)
    return found[0] if found is not None and found[0].kind == kind else None


def _set(target: Node, made) -> int:
    """Give a node the run and parameters of a node just made from new parameters (or pass on its code)."""
    if isinstance(made, int):
        return made
    target.run, target.params, target.kept = made.run, made.params, made.kept
    return SUCCESS


@call()
def cudaGraphKernelNodeGetParams(context, node, out):
    found = _of_kind(context, node, NODE_KERNEL)
    if found is None or not out or not found.params:
        return context.fail(INVALID_VALUE)
    write_kernel_params(out, found)
    return SUCCESS


@call()
def cudaGraphKernelNodeSetParams(context, node, params):
    found = _of_kind(context, node, NODE_KERNEL)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _kernel_node(context, params))


@call()
def cudaGraphMemsetNodeGetParams(context, node, out):
    found = _of_kind(context, node, NODE_MEMSET)
    if found is None or not out or not found.params:     # (a captured memset keeps no struct)
        return context.fail(INVALID_VALUE)
    write_memset_params(out, found)
    return SUCCESS


def write_memset_params(out: int, node: Node, struct: str = "ws_memset_params_layout") -> None:
    """A memset node's parameters into a cudaMemsetParams (struct: or the layout of the V2 struct)."""
    from .native import MEMSET_PARAMS_FIELDS
    at = offsets(struct, MEMSET_PARAMS_FIELDS)
    dst, pitch, value, element, width, height = node.params
    for name, fmt, value_ in (("dst", "Q", dst), ("pitch", "Q", pitch), ("value", "I", value),
                              ("elementSize", "I", element), ("width", "Q", width), ("height", "Q", height)):
        _write(out + at[name], fmt, value_)


@call()
def cudaGraphMemsetNodeSetParams(context, node, params):
    found = _of_kind(context, node, NODE_MEMSET)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _memset_node(context, params))


@call()
def cudaGraphHostNodeGetParams(context, node, out):
    found = _of_kind(context, node, NODE_HOST)
    if found is None or not out or not found.params:
        return context.fail(INVALID_VALUE)
    _write(out, "QQ", *found.params)
    return SUCCESS


@call()
def cudaGraphHostNodeSetParams(context, node, params):
    found = _of_kind(context, node, NODE_HOST)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _host_node(context, params))


@call()
def cudaGraphMemcpyNodeSetParams1D(context, node, dst, src, count, kind):
    found = _of_kind(context, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _memcpy_1d_node(context, dst, src, count,
                                                                                          kind))


# --- executable graphs --------------------------------------------------------------------------

INSTANTIATE_UPLOAD = 0x2                  # cudaGraphInstantiateFlagUpload: not kept (cudaGraphExecGetFlags)
# cudaGraphInstantiateResult
INSTANTIATE_SUCCESS, INSTANTIATE_ERROR, INSTANTIATE_INVALID_STRUCTURE = 0, 1, 2


def instantiate(context, out, graph, flags, call_name: str = "cudaGraphInstantiate") -> tuple:
    """(cudaError_t, cudaGraphInstantiateResult, the graph's node at fault or None) of making an executable
    copy of a graph, its handle written to out."""
    found = _graphs(context).get(graph)
    if not out or found is None or flags & ~INSTANTIATE_FLAGS:
        return context.fail(INVALID_VALUE), INSTANTIATE_ERROR, None
    copy, copies = _clone(found)
    order = _launch_order(copy.nodes)
    result, at_fault = INSTANTIATE_SUCCESS, None
    if order is None:
        why, result = "the graph's edges form a cycle", INSTANTIATE_INVALID_STRUCTURE
        placed = set(_partial_order(copy.nodes))
        at_fault = next(node for node in found.nodes if copies[node] not in placed)
    elif _nested_cycle(copy):
        why, result = "the edges of a graph inside a node form a cycle", INSTANTIATE_INVALID_STRUCTURE
        at_fault = next(node for node in found.nodes if _nested_cycle(Graph([copies[node]])))
    else:
        why = graph_conditionals.body_refusal(copy.nodes)
        result = INSTANTIATE_ERROR if why else INSTANTIATE_SUCCESS
    if why:
        _say_once(context, f"instantiate {why}", f"warpsim: {call_name}: {why}: cudaErrorInvalidValue")
        return context.fail(INVALID_VALUE), result, at_fault
    handle = context.new_handle()
    _graph_execs(context)[handle] = GraphExec(copy.nodes, order, {n.handle: c for n, c in copies.items()},
                                              flags & ~INSTANTIATE_UPLOAD, _new_id(context), copy.user_objects)
    _retain_copies(context, copy)          # the executable graph holds references of its own
    _write(out, "Q", handle)
    return SUCCESS, INSTANTIATE_SUCCESS, None


@call()
def cudaGraphInstantiate(context, out, graph, flags):
    return instantiate(context, out, graph, flags)[0]


@call()
def cudaGraphInstantiateWithFlags(context, out, graph, flags):
    return cudaGraphInstantiate.__wrapped__(context, out, graph, flags)


@call()
def cudaGraphUpload(context, graph_exec, stream):
    if graph_exec not in _graph_execs(context):
        return context.fail(INVALID_HANDLE if graph_exec else INVALID_VALUE)
    return SUCCESS if _known_stream(context, stream) else context.fail(INVALID_HANDLE)


@call()
def cudaGraphLaunch(context, graph_exec, stream):
    found = _graph_execs(context).get(graph_exec)
    if found is None:
        return context.fail(INVALID_HANDLE if graph_exec else INVALID_VALUE)
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    # a capturing stream refuses it and the capture is invalidated (an H100, CUDA 13.0)
    return _refused_while_capturing(context, stream) or _launch(context, found, stream)


def release_exec_references(context, graph_exec: GraphExec) -> None:
    """Give back the user object references an executable graph and the graphs in its nodes hold."""
    user_objects.release(context, graph_exec.user_objects)
    graph_exec.user_objects = {}
    for node in graph_exec.nodes:
        for nested in node.nested():
            for graph in _within(nested):
                user_objects.release(context, graph.user_objects)
                graph.user_objects = {}


@call()
def cudaGraphExecDestroy(context, graph_exec):
    found = _graph_execs(context).pop(graph_exec, None)
    if found is None:
        return context.fail(INVALID_VALUE)
    release_exec_references(context, found)
    return SUCCESS


def _exec_node(context, graph_exec, node, kind):
    """The executable graph's copy of a graph node of that kind, or None."""
    found = _graph_execs(context).get(graph_exec)
    copy = found.of.get(node) if found is not None else None
    return copy if copy is not None and copy.kind == kind else None


@call()
def cudaGraphExecKernelNodeSetParams(context, graph_exec, node, params):
    copy = _exec_node(context, graph_exec, node, NODE_KERNEL)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _kernel_node(context, params))


@call()
def cudaGraphExecMemsetNodeSetParams(context, graph_exec, node, params):
    copy = _exec_node(context, graph_exec, node, NODE_MEMSET)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _memset_node(context, params))


@call()
def cudaGraphExecHostNodeSetParams(context, graph_exec, node, params):
    copy = _exec_node(context, graph_exec, node, NODE_HOST)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _host_node(context, params))


@call()
def cudaGraphExecMemcpyNodeSetParams1D(context, graph_exec, node, dst, src, count, kind):
    copy = _exec_node(context, graph_exec, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _memcpy_1d_node(context, dst, src, count,
                                                                                          kind))


def _update_mismatch(exec_nodes: list, nodes: list):
    """(cudaGraphExecUpdateResult, the graph's node at fault or None) of giving an executable graph
    the parameters of a graph: the same node kinds and edges, node for node."""
    if len(exec_nodes) != len(nodes):
        return UPDATE_TOPOLOGY_CHANGED, None
    place = {node: k for k, node in enumerate(exec_nodes)}
    at = {node: k for k, node in enumerate(nodes)}
    for old, new in zip(exec_nodes, nodes):
        if old.kind != new.kind:
            return UPDATE_NODE_TYPE_CHANGED, new
        if sorted(place[d] for d in old.dependencies) != sorted(at[d] for d in new.dependencies):
            return UPDATE_TOPOLOGY_CHANGED, new
        if old.kind == NODE_CONDITIONAL and graph_conditionals.update_mismatch(old, new):
            return UPDATE_NOT_SUPPORTED, new        # as an H100 (CUDA 13.0) answered
        for old_graph, new_graph in _nested_pairs(old, new):
            result, _ = _update_mismatch(old_graph.nodes, new_graph.nodes)
            if result:
                return result, new
    return UPDATE_SUCCESS, None


def _nested_pairs(old: Node, new: Node) -> list:
    """(executable graph's, graph's) pairs of the child graphs or conditional bodies of two nodes."""
    return list(zip(old.nested(), new.nested()))


def take_parameters(context, exec_nodes: list, nodes: list, of: dict) -> None:
    """Give the executable graph's nodes the graph's nodes' parameters and kernel attributes, at any
    depth (a child graph's user object references too, replacing its own); `of` maps the graph's nodes
    to them from now on."""
    for old, new in zip(exec_nodes, nodes):
        old.run, old.params, old.kept, old.attributes = new.run, new.params, new.kept, dict(new.attributes)
        of[new.handle] = old
        for old_graph, new_graph in _nested_pairs(old, new):
            user_objects.retain(context, new_graph.user_objects)
            user_objects.release(context, old_graph.user_objects)
            old_graph.user_objects = dict(new_graph.user_objects)
            take_parameters(context, old_graph.nodes, new_graph.nodes, of)


@call()
def cudaGraphExecUpdate(context, graph_exec, graph, result_out):
    found, source = _graph_execs(context).get(graph_exec), _graphs(context).get(graph)
    if found is None or source is None:
        return context.fail(INVALID_VALUE)
    result, at_fault = _update_mismatch(found.nodes, source.nodes)
    if result_out:
        from .native import UPDATE_RESULT_FIELDS
        at = offsets("ws_update_result_layout", UPDATE_RESULT_FIELDS)
        _write(result_out + at["result"], "i", result)
        _write(result_out + at["errorNode"], "Q", at_fault.handle if at_fault is not None else 0)
        _write(result_out + at["errorFromNode"], "Q", 0)
    if result:
        return context.fail(UPDATE_FAILURE)
    take_parameters(context, found.nodes, source.nodes, found.of)
    user_objects.retain(context, source.user_objects)      # the source graph's references replace its own
    user_objects.release(context, found.user_objects)
    found.user_objects = dict(source.user_objects)
    return SUCCESS


# --- stream capture -----------------------------------------------------------------------------

def _begin_capture(context, stream, mode, graph=None, dependencies=0, count=0) -> int:
    """Start a capture on `stream`: into a new graph, or into the graph of that handle after the nodes
    of the array `dependencies`. The graph is the program's to add nodes to while the capture runs."""
    call_name = "cudaStreamBeginCapture" + ("ToGraph" if graph is not None else "")
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if mode not in CAPTURE_MODES:
        return context.fail(INVALID_VALUE)
    if stream in LEGACY_STREAMS:
        _say_once(context, "capture legacy", f"warpsim: {call_name}: the legacy default stream cannot "
                  "capture (capture into a stream of cudaStreamCreate): cudaErrorStreamCaptureUnsupported")
        return context.fail(STREAM_CAPTURE_UNSUPPORTED)
    if stream in context.captures:
        return context.fail(CODES["cudaErrorIllegalState"])
    into = Graph(handle=context.new_handle()) if graph is None else _graphs(context).get(graph)
    tail = _nodes_of(context, into, dependencies, count) if into is not None else None
    if tail is None:
        return context.fail(INVALID_VALUE)
    _register(context, into)
    context.captures[stream] = Capture(into, stream, {stream: tail}, _nodes(context), context.new_handle(),
                                       existing=graph is not None)
    return SUCCESS


@call()
def cudaStreamBeginCapture(context, stream, mode):
    return _begin_capture(context, stream, mode)


@call()
def cudaStreamBeginCaptureToGraph(context, stream, graph, dependencies, edge_data, count, mode):
    """Captures into an existing graph (a conditional node's body), the first captured call after the
    nodes given (edge data: the default edges warpsim's graphs have)."""
    return _begin_capture(context, stream, mode, graph, dependencies, count)


@call()
def cudaStreamEndCapture(context, stream, graph_out):
    """Ends the capture its origin stream began, for every stream that joined it; a stream that
    forked from it and was not joined back is cudaErrorStreamCaptureUnjoined."""
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    capture = context.captures.get(stream)
    if not graph_out and (capture is None or not capture.existing):     # the graph an existing capture
        return context.fail(INVALID_VALUE)                              # filled is the program's already
    if capture is None:
        return context.fail(CODES["cudaErrorIllegalState"])
    if stream != capture.origin:        # refused, and the capture is invalidated (an H100, CUDA 13.0)
        capture.invalidated = True
        return context.fail(CODES["cudaErrorStreamCaptureUnmatched"])
    for taking_part in [s for s, c in context.captures.items() if c is capture]:
        del context.captures[taking_part]
    capture.active = False
    if capture.invalidated or capture.unjoined():
        if not capture.existing:
            _forget(context, capture.graph)
        if graph_out:
            _write(graph_out, "Q", 0)
        return context.fail(CODES["cudaErrorStreamCaptureInvalidated" if capture.invalidated else
                                  "cudaErrorStreamCaptureUnjoined"])
    if graph_out:
        _write(graph_out, "Q", _register(context, capture.graph))
    return SUCCESS


def _capture_status(context, stream) -> int:
    capture = context.captures.get(stream)
    return CAPTURE_NONE if capture is None else CAPTURE_INVALIDATED if capture.invalidated else CAPTURE_ACTIVE


@call()
def cudaStreamIsCapturing(context, stream, status_out):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not status_out:
        return context.fail(INVALID_VALUE)
    _write(status_out, "i", _capture_status(context, stream))
    return SUCCESS


@call()
def cudaStreamGetCaptureInfo(context, stream, status_out, id_out, graph_out, dependencies_out, edge_data_out,
                             count_out):
    """The capture's status; while it is active, its id, its graph, and the nodes its next call will
    follow (the stream's last) with their edge data (default edges: zeros), in arrays that live until
    the stream's next query."""
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not status_out or (edge_data_out and not dependencies_out):
        return context.fail(INVALID_VALUE)
    _write(status_out, "i", _capture_status(context, stream))
    capture = context.captures.get(stream)
    if capture is None or capture.invalidated:
        return SUCCESS
    if id_out:
        _write(id_out, "Q", capture.id)
    if graph_out:
        _write(graph_out, "Q", capture.graph.handle)
    tail = capture.tail(stream)
    cells = context.__dict__.setdefault("_capture_dependencies", {})
    cells[stream] = ((ctypes.c_uint64 * max(1, len(tail)))(*[n.handle for n in tail]),
                     ctypes.create_string_buffer(max(1, EDGE_DATA_BYTES * len(tail))))
    for out, cell in ((dependencies_out, cells[stream][0]), (edge_data_out, cells[stream][1])):
        if out:
            _write(out, "Q", ctypes.addressof(cell))
    if count_out:
        _write(count_out, "Q", len(tail))
    return SUCCESS


@call()
def cudaStreamUpdateCaptureDependencies(context, stream, dependencies, edge_data, count, flags):
    """Adds nodes of the capture's graph to those the stream's next call follows, or
    (cudaStreamSetCaptureDependencies) makes them those nodes."""
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    capture = context.captures.get(stream)
    if capture is None:
        return context.fail(CODES["cudaErrorIllegalState"])
    nodes = _nodes_of(context, capture.graph, dependencies, count)
    if nodes is None or flags not in (CAPTURE_ADD_DEPENDENCIES, CAPTURE_SET_DEPENDENCIES):
        return context.fail(INVALID_VALUE)
    if flags == CAPTURE_SET_DEPENDENCIES:
        capture.tails[stream] = nodes
    else:
        capture.wait(stream, nodes)
    return SUCCESS
