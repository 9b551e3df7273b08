"""Graph node parameters, read and changed, and what else a program asks of graphs and their nodes.

The functions of runtime/graphs.py's graphs that work on nodes already made:

- **Parameters.** cudaGraphNodeGetParams writes a node as the tagged union cudaGraphNodeParams (its
  type and the member of its kind; pointers in it point into what the node keeps, valid while the
  node lives, as CUDA's). cudaGraphNodeSetParams and cudaGraphExecNodeSetParams take that union,
  read by graphs' `_node_of_params`, the one reader cudaGraphAddNode uses: its type must be the
  node's (else cudaErrorInvalidValue); memory allocation and free nodes cannot change
  (cudaErrorNotSupported, as CUDA's table says), nor, here, conditional nodes (named once). An
  executable graph's child graph takes a graph of the same shape only (cudaGraphExecUpdate's rule).
  The per-kind forms: cudaGraphMemcpyNode{Get,Set}Params (a cudaMemcpy3DParms; a 1D or symbol copy
  reads back as the 3D copy of one row it is), the ...ToSymbol/...FromSymbol copies (the symbol's
  device address resolved when the node is made, as cudaMemcpyToSymbol resolves it; a direction CUDA
  refuses for a symbol, cudaErrorInvalidMemcpyDirection), the event record and wait nodes' events,
  cudaGraphExecChildGraphNodeSetParams.
- **Enabled.** cudaGraphNodeSetEnabled(0) makes an executable graph's kernel, memset or memcpy node
  run as an empty node until enabled again (other kinds: cudaErrorInvalidValue, as CUDA's note says).
- **Identity.** cudaGraphGetId and cudaGraphExecGetId (one count for both), cudaGraphNodeGetLocalId
  (numbered in the order nodes were added to their graph), cudaGraphNodeGetToolsId (graph id and
  local id together), cudaGraphNodeGetContainingGraph (for a node of a child graph, that graph),
  cudaGraphNodeFindInClone (the copy cudaGraphClone made of a node, while it is in the clone),
  cudaGraphExecGetFlags (the instantiation flags, less cudaGraphInstantiateFlagUpload).
- **cudaGraphInstantiateWithParams** instantiates as cudaGraphInstantiateWithFlags does and reports
  result_out and errNode_out (a cycle: cudaGraphInstantiateInvalidStructure and a node on or after it);
  with cudaGraphInstantiateFlagUpload its upload stream must be a stream.
- **Kernel node attributes** (cudaGraphKernelNode{Get,Set,Copy}Attributes): kept per node, each its
  cudaLaunchAttributeValue's bytes, read back as set (an attribute never set reads as zeros); the
  rules are launch_attributes.node_options', and a cluster shape or a cooperative launch takes effect
  when the node runs. A device-updatable node (cudaLaunchAttributeDeviceUpdatableKernelNode 1) is
  cudaErrorNotSupported: device-side node updates are not simulated.
- **User objects** owned by graphs: cudaGraphRetainUserObject and cudaGraphReleaseUserObject
  (runtime/user_objects.py).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this module).
"""

from __future__ import annotations

import ctypes

from . import launch_attributes, user_objects
from .calls import (INVALID_VALUE, NODE_CONDITIONAL, NODE_EVENT_RECORD, NODE_GRAPH, NODE_HOST,
                    NODE_KERNEL, NODE_KIND_NAMES, NODE_MEM_ALLOC, NODE_MEM_FREE, NODE_MEMCPY, NODE_MEMSET,
                    NODE_WAIT_EVENT, SUCCESS, _known_stream, _say_once, _symbol_address, _write, call)
from .errors import CODES
from .graphs import (INSTANTIATE_ERROR, INSTANTIATE_UPLOAD, OWNERSHIP_CLONE, UPDATE_SUCCESS, Graph, _add,
                     _event_node, _exec_node, _forget, _graph_execs, _graphs, _memcpy_1d_node, _memcpy_node, _node,
                     _node_of_params, _of_kind, _set, _update_mismatch, instantiate, take_parameters,
                     write_kernel_params, write_memset_params)
from .hoststructs import layout, offsets, read

NOT_SUPPORTED = CODES["cudaErrorNotSupported"]
INVALID_DIRECTION = CODES["cudaErrorInvalidMemcpyDirection"]
HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT = 1, 2, 3, 4    # cudaMemcpyKind
TO_SYMBOL_KINDS, FROM_SYMBOL_KINDS = (HOST_TO_DEVICE, DEVICE_TO_DEVICE, DEFAULT), (DEVICE_TO_HOST, DEVICE_TO_DEVICE,
                                                                                 DEFAULT)
SWITCHABLE = (NODE_KERNEL, NODE_MEMSET, NODE_MEMCPY)      # the kinds cudaGraphNodeSetEnabled takes
FIXED = (NODE_MEM_ALLOC, NODE_MEM_FREE)                  # parameters CUDA never changes


def _refuse(context, call_name: str, why: str, code: int) -> int:
    _say_once(context, f"{call_name} {why}", f"warpsim: {call_name}: {why}: "
              f"{'cudaErrorNotSupported' if code == NOT_SUPPORTED else 'cudaErrorInvalidValue'}")
    return context.fail(code)


def _no_parameters(context, call_name: str, node) -> int:
    """A node made by stream capture of a call whose parameters warpsim does not keep (a copy, a memset,
    a host function, a graph launch): cudaErrorNotSupported, named once."""
    return _refuse(context, call_name, f"warpsim keeps no parameters of this captured "
                   f"{NODE_KIND_NAMES[node.kind]} node", NOT_SUPPORTED)


def _exec_copy(context, graph_exec, node):
    """An executable graph's copy of a graph node (any kind), or None."""
    found = _graph_execs(context).get(graph_exec)
    return found.of.get(node) if found is not None else None


# --- cudaMemcpy3DParms of a copy node ------------------------------------------------------------

def _write_memcpy3d(context, call_name: str, out: int, node) -> int:
    """A copy node's cudaMemcpy3DParms at out: the struct a 3D node keeps, or a 1D copy's one row."""
    from .native import EXTENT_FIELDS, MEMCPY3D_FIELDS, PITCHED_PTR_FIELDS
    size = layout("ws_memcpy3d_layout", 0)[0]
    if node.kept is not None and not node.params:
        ctypes.memmove(out, node.kept, size)
        return SUCCESS
    if not node.params:
        return _no_parameters(context, call_name, node)
    dst, src, count, kind = node.params
    ctypes.memset(out, 0, size)
    at, pitched = offsets("ws_memcpy3d_layout", MEMCPY3D_FIELDS), offsets("ws_pitched_ptr_layout", PITCHED_PTR_FIELDS)
    extent = offsets("ws_extent_layout", EXTENT_FIELDS)
    for side, address in (("srcPtr", src), ("dstPtr", dst)):
        for name, value in (("ptr", address), ("pitch", count), ("xsize", count), ("ysize", 1)):
            _write(out + at[side] + pitched[name], "Q", value)
    for name, value in (("width", count), ("height", 1), ("depth", 1)):
        _write(out + at["extent"] + extent[name], "Q", value)
    _write(out + at["kind"], "i", kind)
    return SUCCESS


# --- the generic form: cudaGraphNodeParams --------------------------------------------------------

def _write_node_params(context, out: int, node) -> int:
    """A node as a cudaGraphNodeParams: its type, and the union member of its kind."""
    from .native import MEM_ALLOC_NODE_FIELDS, NODE_PARAMS_FIELDS
    at = offsets("ws_graph_node_params_layout", NODE_PARAMS_FIELDS)
    needs_parameters = node.kind in (NODE_KERNEL, NODE_MEMSET, NODE_HOST, NODE_WAIT_EVENT, NODE_EVENT_RECORD,
                                     NODE_MEM_FREE)
    if needs_parameters and not node.params or node.kind == NODE_GRAPH and node.child is None \
            or node.kind == NODE_MEM_ALLOC and node.kept is None:
        return _no_parameters(context, "cudaGraphNodeGetParams", node)
    ctypes.memset(out, 0, layout("ws_graph_node_params_layout", 0)[0])
    _write(out + at["type"], "i", node.kind)
    if node.kind == NODE_KERNEL:
        write_kernel_params(out + at["kernel"], node, "ws_kernel_node_params_v2_layout")
    elif node.kind == NODE_MEMCPY:
        return _write_memcpy3d(context, "cudaGraphNodeGetParams", out + at["memcpy.copyParams"], node)
    elif node.kind == NODE_MEMSET:
        write_memset_params(out + at["memset"], node, "ws_memset_params_v2_layout")
    elif node.kind == NODE_HOST:
        _write(out + at["host"], "QQ", *node.params)
    elif node.kind == NODE_GRAPH:
        _write(out + at["graph.graph"], "Q", node.child.handle)
        _write(out + at["graph.ownership"], "i", OWNERSHIP_CLONE)
    elif node.kind in (NODE_WAIT_EVENT, NODE_EVENT_RECORD):
        _write(out + at["eventWait.event" if node.kind == NODE_WAIT_EVENT else "eventRecord.event"], "Q",
               node.params[0])
    elif node.kind == NODE_MEM_ALLOC:
        alloc = offsets("ws_mem_alloc_node_v2_layout", MEM_ALLOC_NODE_FIELDS)
        props = layout("ws_mem_pool_props_layout", 0)[0]     # poolProps leads both the V1 and V2 structs
        ctypes.memmove(out + at["alloc"] + alloc["poolProps"], node.kept, props)
        _write(out + at["alloc"] + alloc["bytesize"], "Q", node.params[1])
        _write(out + at["alloc"] + alloc["dptr"], "Q", node.params[0])
    elif node.kind == NODE_MEM_FREE:
        _write(out + at["free.dptr"], "Q", node.params[0])
    elif node.kind == NODE_CONDITIONAL:
        handle, kind, size = node.params
        _write(out + at["conditional.handle"], "Q", handle)
        _write(out + at["conditional.type"], "i", kind)
        _write(out + at["conditional.size"], "I", size)
        _write(out + at["conditional.phGraph_out"], "Q", ctypes.addressof(node.kept))
    return SUCCESS


@call()
def cudaGraphNodeGetParams(context, node, out):
    found = _node(context, node)
    if found is None or not out:
        return context.fail(INVALID_VALUE)
    return _write_node_params(context, out, found[0])


def _node_type_refusal(context, call_name: str, target, params: int) -> int:
    """The cudaError_t of giving `target` the cudaGraphNodeParams at params (SUCCESS: none)."""
    from .native import NODE_PARAMS_FIELDS
    if target is None or not params:
        return context.fail(INVALID_VALUE)
    (kind,) = read(params + offsets("ws_graph_node_params_layout", NODE_PARAMS_FIELDS)["type"], "i")
    if kind != target.kind:
        return context.fail(INVALID_VALUE)
    if kind in FIXED:
        return _refuse(context, call_name, f"the parameters of a {NODE_KIND_NAMES[kind]} node cannot change",
                       NOT_SUPPORTED)
    if kind == NODE_CONDITIONAL:
        return _refuse(context, call_name, "changing a conditional node's parameters is not simulated",
                       NOT_SUPPORTED)
    return SUCCESS


def _child_of_params(params: int) -> int:
    from .native import NODE_PARAMS_FIELDS
    return read(params + offsets("ws_graph_node_params_layout", NODE_PARAMS_FIELDS)["graph.graph"], "Q")[0]


@call()
def cudaGraphNodeSetParams(context, node, params):
    found = _node(context, node)
    target, graph = found if found is not None else (None, None)
    refused = _node_type_refusal(context, "cudaGraphNodeSetParams", target, params)
    if refused:
        return refused
    made = _node_of_params(context, graph.handle, params)
    if isinstance(made, int) or target.kind != NODE_GRAPH:
        return _set(target, made)
    if target.child is not None:            # the node's own copy of its old child graph goes
        _forget(context, target.child)
    target.child = made.child
    return SUCCESS


@call()
def cudaGraphExecNodeSetParams(context, graph_exec, node, params):
    copy = _exec_copy(context, graph_exec, node)
    refused = _node_type_refusal(context, "cudaGraphExecNodeSetParams", copy, params)
    if refused:
        return refused
    if copy.kind == NODE_GRAPH:
        return _exec_child_set(context, copy, _child_of_params(params))
    return _set(copy, _node_of_params(context, _node(context, node)[1].handle, params))


# --- copy nodes -----------------------------------------------------------------------------------

@call()
def cudaGraphMemcpyNodeGetParams(context, node, out):
    found = _of_kind(context, node, NODE_MEMCPY)
    if found is None or not out:
        return context.fail(INVALID_VALUE)
    return _write_memcpy3d(context, "cudaGraphMemcpyNodeGetParams", out, found)


@call()
def cudaGraphMemcpyNodeSetParams(context, node, parms):
    found = _of_kind(context, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _memcpy_node(
        context, parms, "cudaGraphMemcpyNodeSetParams"))


@call()
def cudaGraphExecMemcpyNodeSetParams(context, graph_exec, node, parms):
    copy = _exec_node(context, graph_exec, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _memcpy_node(
        context, parms, "cudaGraphExecMemcpyNodeSetParams"))


def _symbol_node(context, symbol, other, count, offset, kind, to_symbol: bool):
    """A copy node between a __device__/__constant__ variable (its address resolved now, as
    cudaMemcpyToSymbol resolves it) and `other`; or the cudaError_t."""
    if kind not in (TO_SYMBOL_KINDS if to_symbol else FROM_SYMBOL_KINDS):     # (the host side of a symbol
        return context.fail(INVALID_DIRECTION)                                    # copy is never the device's)
    address, code = _symbol_address(context, symbol, offset, count)
    if code:
        return code
    dst, src = (address, other) if to_symbol else (other, address)
    return _memcpy_1d_node(context, dst, src, count, kind)


@call()
def cudaGraphAddMemcpyNodeToSymbol(context, out, graph, dependencies, count_deps, symbol, src, count, offset, kind):
    return _add(context, out, graph, dependencies, count_deps,
                lambda: _symbol_node(context, symbol, src, count, offset, kind, to_symbol=True))


@call()
def cudaGraphAddMemcpyNodeFromSymbol(context, out, graph, dependencies, count_deps, dst, symbol, count, offset, kind):
    return _add(context, out, graph, dependencies, count_deps,
                lambda: _symbol_node(context, symbol, dst, count, offset, kind, to_symbol=False))


@call()
def cudaGraphMemcpyNodeSetParamsToSymbol(context, node, symbol, src, count, offset, kind):
    found = _of_kind(context, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if found is None else _set(
        found, _symbol_node(context, symbol, src, count, offset, kind, to_symbol=True))


@call()
def cudaGraphMemcpyNodeSetParamsFromSymbol(context, node, dst, symbol, count, offset, kind):
    found = _of_kind(context, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if found is None else _set(
        found, _symbol_node(context, symbol, dst, count, offset, kind, to_symbol=False))


@call()
def cudaGraphExecMemcpyNodeSetParamsToSymbol(context, graph_exec, node, symbol, src, count, offset, kind):
    copy = _exec_node(context, graph_exec, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if copy is None else _set(
        copy, _symbol_node(context, symbol, src, count, offset, kind, to_symbol=True))


@call()
def cudaGraphExecMemcpyNodeSetParamsFromSymbol(context, graph_exec, node, dst, symbol, count, offset, kind):
    copy = _exec_node(context, graph_exec, node, NODE_MEMCPY)
    return context.fail(INVALID_VALUE) if copy is None else _set(
        copy, _symbol_node(context, symbol, dst, count, offset, kind, to_symbol=False))


# --- event nodes, child graphs --------------------------------------------------------------------

def _get_event(context, node, kind, out) -> int:
    found = _of_kind(context, node, kind)
    if found is None or not out:
        return context.fail(INVALID_VALUE)
    if not found.params:
        return _no_parameters(context, "cudaGraphEvent{Record,Wait}NodeGetEvent", found)
    _write(out, "Q", found.params[0])
    return SUCCESS


@call()
def cudaGraphEventRecordNodeGetEvent(context, node, out):
    return _get_event(context, node, NODE_EVENT_RECORD, out)


@call()
def cudaGraphEventWaitNodeGetEvent(context, node, out):
    return _get_event(context, node, NODE_WAIT_EVENT, out)


@call()
def cudaGraphEventRecordNodeSetEvent(context, node, event):
    found = _of_kind(context, node, NODE_EVENT_RECORD)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _event_node(context, NODE_EVENT_RECORD,
                                                                                       event))


@call()
def cudaGraphEventWaitNodeSetEvent(context, node, event):
    found = _of_kind(context, node, NODE_WAIT_EVENT)
    return context.fail(INVALID_VALUE) if found is None else _set(found, _event_node(context, NODE_WAIT_EVENT, event))


@call()
def cudaGraphExecEventRecordNodeSetEvent(context, graph_exec, node, event):
    copy = _exec_node(context, graph_exec, node, NODE_EVENT_RECORD)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _event_node(context, NODE_EVENT_RECORD, event))


@call()
def cudaGraphExecEventWaitNodeSetEvent(context, graph_exec, node, event):
    copy = _exec_node(context, graph_exec, node, NODE_WAIT_EVENT)
    return context.fail(INVALID_VALUE) if copy is None else _set(copy, _event_node(context, NODE_WAIT_EVENT, event))


def _exec_child_set(context, copy, child: int) -> int:
    """Give an executable graph's child graph node the parameters of `child`, a graph of the same node
    kinds and edges (cudaGraphExecUpdate's rule), and its user object references."""
    source = _graphs(context).get(child)
    if copy is None or copy.child is None or source is None:
        return context.fail(INVALID_VALUE)
    result, _ = _update_mismatch(copy.child.nodes, source.nodes)
    if result != UPDATE_SUCCESS:
        return _refuse(context, "cudaGraphExecChildGraphNodeSetParams", "the new child graph's nodes or edges "
                       "differ from the node's", INVALID_VALUE)
    take_parameters(context, [copy], [_child_holder(copy, source)], {})
    return SUCCESS


def _child_holder(copy, source: Graph):
    """A stand-in node holding `source` as its child, for take_parameters to pair with `copy`."""
    from dataclasses import replace
    return replace(copy, child=source)


@call()
def cudaGraphExecChildGraphNodeSetParams(context, graph_exec, node, child):
    return _exec_child_set(context, _exec_node(context, graph_exec, node, NODE_GRAPH), child)


# --- enabled nodes, ids, flags ---------------------------------------------------------------------

@call()
def cudaGraphNodeSetEnabled(context, graph_exec, node, enabled):
    copy = _exec_copy(context, graph_exec, node)
    if copy is None or copy.kind not in SWITCHABLE:
        return context.fail(INVALID_VALUE)
    copy.enabled = bool(enabled)
    return SUCCESS


@call()
def cudaGraphNodeGetEnabled(context, graph_exec, node, out):
    copy = _exec_copy(context, graph_exec, node)
    if copy is None or copy.kind not in SWITCHABLE or not out:
        return context.fail(INVALID_VALUE)
    _write(out, "I", int(copy.enabled))
    return SUCCESS


@call()
def cudaGraphNodeFindInClone(context, out, original, clone):
    found = _graphs(context).get(clone)
    twin = found.originals.get(original) if found is not None else None
    if not out or twin is None or _node(context, twin.handle) is None:     # (a copy destroyed since is gone)
        return context.fail(INVALID_VALUE)
    _write(out, "Q", twin.handle)
    return SUCCESS


def _report(context, found, out: int, fmt: str, value) -> int:
    """A query's answer: value(found) written to out, or cudaErrorInvalidValue where the handle
    names nothing (found is None) or out is NULL."""
    if found is None or not out:
        return context.fail(INVALID_VALUE)
    _write(out, fmt, value(found))
    return SUCCESS


@call()
def cudaGraphNodeGetContainingGraph(context, node, out):
    return _report(context, _node(context, node), out, "Q", lambda found: found[1].handle)


def _local_id(graph: Graph, node) -> int:
    """The node's number in its graph: nodes are numbered in the order they were added, numbers of
    destroyed nodes not used again."""
    for each in graph.nodes:
        if each not in graph.local_ids:
            graph.local_ids[each] = len(graph.local_ids)
    return graph.local_ids[node]


@call()
def cudaGraphNodeGetLocalId(context, node, out):
    return _report(context, _node(context, node), out, "I", lambda found: _local_id(found[1], found[0]))


@call()
def cudaGraphNodeGetToolsId(context, node, out):
    """An id unique in the process: the graph's id above the node's local id."""
    return _report(context, _node(context, node), out, "Q",
                   lambda found: found[1].id << 32 | _local_id(found[1], found[0]))


@call()
def cudaGraphGetId(context, graph, out):
    return _report(context, _graphs(context).get(graph), out, "I", lambda found: found.id)


@call()
def cudaGraphExecGetId(context, graph_exec, out):
    return _report(context, _graph_execs(context).get(graph_exec), out, "I", lambda found: found.id)


@call()
def cudaGraphExecGetFlags(context, graph_exec, out):
    return _report(context, _graph_execs(context).get(graph_exec), out, "Q", lambda found: found.flags)


@call()
def cudaGraphInstantiateWithParams(context, out, graph, params):
    from .native import INSTANTIATE_PARAMS_FIELDS
    if not params:
        return context.fail(INVALID_VALUE)
    at = offsets("ws_instantiate_params_layout", INSTANTIATE_PARAMS_FIELDS)
    (flags,), (stream,) = read(params + at["flags"], "Q"), read(params + at["uploadStream"], "Q")
    if flags & INSTANTIATE_UPLOAD and not _known_stream(context, stream):
        code, result, at_fault = context.fail(INVALID_VALUE), INSTANTIATE_ERROR, None
    else:
        code, result, at_fault = instantiate(context, out, graph, flags, "cudaGraphInstantiateWithParams")
    _write(params + at["errNode_out"], "Q", at_fault.handle if at_fault is not None else 0)
    _write(params + at["result_out"], "i", result)
    return code


# --- kernel node attributes ------------------------------------------------------------------------

def _attributes_refusal(context, call_name: str, attributes: dict) -> int:
    """The cudaError_t of a kernel node taking these attributes (SUCCESS: none)."""
    updatable = attributes.get(launch_attributes.DEVICE_UPDATABLE)
    if updatable is not None and int.from_bytes(updatable[:4], "little"):
        return _refuse(context, call_name, "device-updatable kernel nodes are not simulated", NOT_SUPPORTED)
    try:
        launch_attributes.node_options(attributes, context.events)
    except launch_attributes.Unsupported as refusal:
        return _refuse(context, call_name, str(refusal), NOT_SUPPORTED)
    except launch_attributes.Refusal as refusal:
        return _refuse(context, call_name, str(refusal), INVALID_VALUE)
    return SUCCESS


@call()
def cudaGraphKernelNodeSetAttribute(context, node, attribute, value):
    found = _of_kind(context, node, NODE_KERNEL)
    if found is None or not value:
        return context.fail(INVALID_VALUE)
    attributes = {**found.attributes, attribute: ctypes.string_at(value, launch_attributes.value_bytes())}
    refused = _attributes_refusal(context, "cudaGraphKernelNodeSetAttribute", attributes)
    if refused:
        return refused
    found.attributes = attributes
    return SUCCESS


@call()
def cudaGraphKernelNodeGetAttribute(context, node, attribute, out):
    found = _of_kind(context, node, NODE_KERNEL)
    if found is None or not out or attribute in launch_attributes.NODE_REFUSED:
        return context.fail(INVALID_VALUE)
    size = launch_attributes.value_bytes()
    ctypes.memmove(out, found.attributes.get(attribute, bytes(size)), size)
    return SUCCESS


@call()
def cudaGraphKernelNodeCopyAttributes(context, destination, source):
    target, origin = _of_kind(context, destination, NODE_KERNEL), _of_kind(context, source, NODE_KERNEL)
    if target is None or origin is None:
        return context.fail(INVALID_VALUE)
    target.attributes = dict(origin.attributes)
    return SUCCESS


# --- user objects a graph owns (runtime/user_objects.py) ------------------------------------------

@call()
def cudaGraphRetainUserObject(context, graph, handle, count, flags):
    """The graph owns `count` more references: new ones, or with cudaGraphUserObjectMove the caller's."""
    found = _graphs(context).get(graph)
    if found is None or handle not in user_objects.objects(context) or not user_objects.valid_count(count) \
            or flags & ~user_objects.GRAPH_MOVE:
        return context.fail(INVALID_VALUE)
    if not flags & user_objects.GRAPH_MOVE:
        user_objects.retain(context, {handle: count})
    found.user_objects[handle] = found.user_objects.get(handle, 0) + count
    return SUCCESS


@call()
def cudaGraphReleaseUserObject(context, graph, handle, count):
    found = _graphs(context).get(graph)
    if found is None or not user_objects.valid_count(count) or found.user_objects.get(handle, 0) < count:
        return context.fail(INVALID_VALUE)
    found.user_objects[handle] -= count
    if not found.user_objects[handle]:
        del found.user_objects[handle]
    user_objects.release(context, {handle: count})
    return SUCCESS

