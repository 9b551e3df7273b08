"""CUDA graphs: graphs built node by node, instantiated and launched, with CUDA's error codes.

A cudaGraph_t here is an empty graph: cudaGraphCreate, cudaGraphGetNodes,
cudaGraphInstantiate, cudaGraphLaunch (of an empty graph: nothing to run, as on a GPU)
and the destroys work; adding nodes and stream capture are not simulated yet, so those
calls return cudaErrorNotSupported and name themselves once on stderr (calls.not_supported).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .calls import INVALID_VALUE, SUCCESS, _known_stream, _write, call
from .errors import CODES

INVALID_HANDLE = CODES["cudaErrorInvalidResourceHandle"]
GRAPH_FLAGS = 0                      # cudaGraphCreate takes no flags (it must be 0)
INSTANTIATE_FLAGS = 0x1 | 0x2 | 0x4 | 0x8   # AutoFreeOnLaunch, Upload, DeviceLaunch, UseNodePriority


@dataclass
class Graph:
    nodes: list = field(default_factory=list)


@dataclass
class GraphExec:
    graph_nodes: tuple


def _graphs(context) -> dict:
    return context.__dict__.setdefault("graphs", {})


def _graph_execs(context) -> dict:
    return context.__dict__.setdefault("graph_execs", {})


@call()
def cudaGraphCreate(context, out, flags):
    if not out or flags != GRAPH_FLAGS:
        return context.fail(INVALID_VALUE)
    handle = context.new_handle()
    _graphs(context)[handle] = Graph()
    _write(out, "Q", handle)
    return SUCCESS


@call()
def cudaGraphDestroy(context, graph):
    if _graphs(context).pop(graph, None) is None:
        return context.fail(INVALID_VALUE)
    return SUCCESS


@call()
def cudaGraphGetNodes(context, graph, nodes_out, count_out):
    found = _graphs(context).get(graph)
    if found is None or not count_out:
        return context.fail(INVALID_VALUE)
    _write(count_out, "Q", len(found.nodes))
    return SUCCESS


@call()
def cudaGraphInstantiate(context, out, graph, flags):
    found = _graphs(context).get(graph)
    if not out or found is None or flags & ~INSTANTIATE_FLAGS:
        return context.fail(INVALID_VALUE)
    handle = context.new_handle()
    _graph_execs(context)[handle] = GraphExec(tuple(found.nodes))
    _write(out, "Q", handle)
    return SUCCESS


@call()
def cudaGraphLaunch(context, graph_exec, stream):
    if graph_exec not in _graph_execs(context):
        return context.fail(INVALID_HANDLE if graph_exec else INVALID_VALUE)
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    return SUCCESS                   # an empty graph: no work


@call()
def cudaGraphExecDestroy(context, graph_exec):
    if _graph_execs(context).pop(graph_exec, None) is None:
        return context.fail(INVALID_VALUE)
    return SUCCESS
