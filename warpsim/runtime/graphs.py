"""CUDA graphs made by stream capture, instantiated and launched, with CUDA's error codes.

cudaStreamBeginCapture makes a stream record its work instead of running it:
kernel launches (with their parameter bytes as they were at the launch call, as
CUDA copies them), cudaMemcpyAsync, cudaMemsetAsync and cudaLaunchHostFunc each
become the next node of the stream's graph (calls._captured); a call that waits
for the stream (cudaStreamSynchronize, cudaStreamQuery) is refused with
cudaErrorStreamCaptureUnsupported and invalidates the capture. cudaStreamEndCapture
gives the graph; cudaGraphLaunch runs its nodes in capture order (one stream's
work is a chain). cudaGraphCreate makes an empty graph; adding nodes by hand
(cudaGraphAddKernelNode, ...) and capture across streams joined by events are not
simulated: those calls return cudaErrorNotSupported (calls.not_supported).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .calls import INVALID_VALUE, SUCCESS, _known_stream, _say_once, _write, call
from .errors import CODES

INVALID_HANDLE = CODES["cudaErrorInvalidResourceHandle"]
GRAPH_FLAGS = 0                      # cudaGraphCreate takes no flags (it must be 0)
INSTANTIATE_FLAGS = 0x1 | 0x2 | 0x4 | 0x8   # AutoFreeOnLaunch, Upload, DeviceLaunch, UseNodePriority
CAPTURE_MODES = range(3)             # cudaStreamCaptureModeGlobal, ThreadLocal, Relaxed
LEGACY_STREAMS = (0, 1)              # the NULL stream and cudaStreamLegacy cannot capture
CAPTURE_NONE, CAPTURE_ACTIVE, CAPTURE_INVALIDATED = 0, 1, 2      # cudaStreamCaptureStatus
STREAM_CAPTURE_UNSUPPORTED = CODES["cudaErrorStreamCaptureUnsupported"]


@dataclass
class Graph:
    nodes: list = field(default_factory=list)    # callables returning a cudaError_t, run in order
    invalidated: bool = False                    # a refused call during its capture


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
    found = _graph_execs(context).get(graph_exec)
    if found is None:
        return context.fail(INVALID_HANDLE if graph_exec else INVALID_VALUE)
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    for node in found.graph_nodes:   # one stream's captured work: each node after the one before
        code = node()
        if code:
            return code
    return SUCCESS


@call()
def cudaGraphExecDestroy(context, graph_exec):
    if _graph_execs(context).pop(graph_exec, None) is None:
        return context.fail(INVALID_VALUE)
    return SUCCESS


@call()
def cudaStreamBeginCapture(context, stream, mode):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if mode not in CAPTURE_MODES:
        return context.fail(INVALID_VALUE)
    if stream in LEGACY_STREAMS:
        _say_once(context, "capture legacy", "warpsim: cudaStreamBeginCapture: the legacy default stream cannot "
                  "capture (capture into a stream of cudaStreamCreate): cudaErrorStreamCaptureUnsupported")
        return context.fail(STREAM_CAPTURE_UNSUPPORTED)
    if stream in context.captures:
        return context.fail(CODES["cudaErrorIllegalState"])
    context.captures[stream] = Graph()
    return SUCCESS


@call()
def cudaStreamEndCapture(context, stream, graph_out):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not graph_out:
        return context.fail(INVALID_VALUE)
    graph = context.captures.pop(stream, None)
    if graph is None:
        return context.fail(CODES["cudaErrorIllegalState"])
    if graph.invalidated:
        _write(graph_out, "Q", 0)
        return context.fail(CODES["cudaErrorStreamCaptureInvalidated"])
    handle = context.new_handle()
    _graphs(context)[handle] = graph
    _write(graph_out, "Q", handle)
    return SUCCESS


@call()
def cudaStreamIsCapturing(context, stream, status_out):
    if not _known_stream(context, stream):
        return context.fail(INVALID_HANDLE)
    if not status_out:
        return context.fail(INVALID_VALUE)
    graph = context.captures.get(stream)
    status = CAPTURE_NONE if graph is None else CAPTURE_INVALIDATED if graph.invalidated else CAPTURE_ACTIVE
    _write(status_out, "i", status)
    return SUCCESS


@call()
def cudaGraphInstantiateWithFlags(context, out, graph, flags):
    return cudaGraphInstantiate.__wrapped__(context, out, graph, flags)
