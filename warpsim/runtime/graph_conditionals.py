"""Conditional graph nodes (CUDA 12.4+): what IF, WHILE and SWITCH nodes and their handles mean, for
the graph functions of runtime/graphs.py, which call these.

- **Handles.** cudaGraphConditionalHandleCreate[_v2] gives a handle of a graph, with a default
  value and a flag: cudaGraphCondAssignDefault sets the value to the default at the start of every
  launch of the graph. Without it the value is 0 until a kernel sets it (an H100, CUDA 13.0: an
  IF of default 1 did not run its body), then whatever was set last (the previous launch's value).
- **Nodes.** cudaGraphAddNode of a cudaGraphNodeTypeConditional node names a handle of its graph
  or of a graph it is a body of, a type and a size (IF: 1 or 2, WHILE: 1, SWITCH: any above 0, else
  cudaErrorInvalidValue), and gets that many empty body graphs, written to phGraph_out: the program
  fills them node by node or by capture (cudaStreamBeginCaptureToGraph).
- **Launch.** Kernels set the value in device code (cudaGraphSetConditional:
  machine/graph_conditions.py, which keeps the values and lets only a launch's open handles be
  set). When the launch reaches the node: IF runs body 0 once if the value is non-zero, else body 1
  if there is one; WHILE runs body 0 for as long as the value is non-zero, looked at before each
  run (a body that never clears it loops forever, as on a GPU; a kernel fault stops it); SWITCH
  runs body n for a value n below its size, else none.
- **Restrictions,** as CUDA's: a body holds only kernel, memcpy, memset, empty, child graph and
  conditional nodes, at any depth (other kinds fail cudaGraphInstantiate with cudaErrorInvalidValue,
  as CUDA refuses them there); a graph with conditional nodes cannot be cloned (cudaGraphClone) or
  become a child graph node (cudaErrorNotSupported, named once on stderr). cudaGraphExecUpdate takes
  a graph whose conditional nodes have the same type and size, their bodies updated as child graphs
  are; another is cudaGraphExecUpdateErrorNotSupported. These codes are an H100's (CUDA 13.0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..machine.graph_conditions import conditions
from .calls import (INVALID_VALUE, NODE_CONDITIONAL, NODE_EMPTY, NODE_GRAPH, NODE_KERNEL, NODE_KIND_NAMES, NODE_MEMCPY,
                    NODE_MEMSET, SUCCESS, _say_once, _write)
from .errors import CODES

ASSIGN_DEFAULT = 0x1                  # cudaGraphCondAssignDefault, the only flag
COND_IF, COND_WHILE, COND_SWITCH = 0, 1, 2    # cudaGraphConditionalNodeType
SIZES = {COND_IF: lambda n: n in (1, 2), COND_WHILE: lambda n: n == 1, COND_SWITCH: lambda n: n > 0}
BODY_KINDS = (NODE_KERNEL, NODE_MEMCPY, NODE_MEMSET, NODE_EMPTY, NODE_GRAPH, NODE_CONDITIONAL)


@dataclass(eq=False)
class ConditionHandle:
    """A cudaGraphConditionalHandle: the graph it was made for, its default value, whether each
    launch starts from that default."""
    graph: object
    default: int
    assign_default: bool


def _handles(context) -> dict:
    """handle -> ConditionHandle."""
    return context.__dict__.setdefault("condition_handles", {})


def create_handle(context, out: int, graph, ctx: int, default: int, flags: int) -> int:
    """cudaGraphConditionalHandleCreate[_v2] for a Graph (None: not a graph). ctx: an execution context,
    of which warpsim has none to give: NULL (the current one) only."""
    if not out or graph is None or ctx or flags & ~ASSIGN_DEFAULT:
        return context.fail(INVALID_VALUE)
    handle = context.new_handle()
    _handles(context)[handle] = ConditionHandle(graph, default, bool(flags & ASSIGN_DEFAULT))
    conditions(context.device.memory).values[handle] = default if flags & ASSIGN_DEFAULT else 0
    _write(out, "Q", handle)
    return SUCCESS


def forget_handles(context, graph) -> None:
    """A destroyed graph's handles go with it."""
    handles = _handles(context)
    for handle in [h for h, found in handles.items() if found.graph is graph]:
        del handles[handle]


def node_refusal(context, graph, handle: int, kind: int, size: int, ctx: int) -> int:
    """The cudaError_t of adding a conditional node of these parameters to `graph` (SUCCESS: none): its
    handle must be one of the graph's or of a graph the graph is a body of (Graph.parent)."""
    found = _handles(context).get(handle)
    if found is None or kind not in SIZES or not SIZES[kind](size) or ctx:
        return context.fail(INVALID_VALUE)
    owner = graph
    while owner is not None and owner is not found.graph:
        owner = owner.parent
    if owner is None:
        _say_once(context, f"condition handle {handle}", f"warpsim: cudaGraphAddNode: conditional handle "
                  f"{handle:#x} belongs to another graph (a handle serves its graph and that graph's "
                  "conditional bodies): cudaErrorInvalidValue")
        return context.fail(INVALID_VALUE)
    return SUCCESS


def conditionals(nodes: list):
    """The conditional nodes among `nodes`, in their child graphs and in their bodies, at any depth."""
    for node in nodes:
        if node.kind == NODE_CONDITIONAL:
            yield node
        for graph in node.nested():
            yield from conditionals(graph.nodes)


def body_refusal(nodes: list, in_body: bool = False) -> str:
    """Why CUDA refuses to instantiate a graph of these nodes for its conditional bodies ('' if not):
    a body, or a child graph in one, holding a node of a kind bodies do not take."""
    for node in nodes:
        if in_body and node.kind not in BODY_KINDS:
            return (f"a conditional node's body holds a {NODE_KIND_NAMES.get(node.kind, node.kind)} node "
                    f"(bodies take {', '.join(NODE_KIND_NAMES[k] for k in BODY_KINDS)} nodes)")
        for graph in node.nested():
            why = body_refusal(graph.nodes, in_body or node.kind == NODE_CONDITIONAL)
            if why:
                return why
    return ""


def refuse_with_conditionals(context, graph, use: str) -> int:
    """cudaErrorNotSupported, said once, where a graph with conditional nodes would be cloned or made a
    child graph (`use`), which CUDA refuses; SUCCESS if the graph has none."""
    if next(conditionals(graph.nodes), None) is None:
        return SUCCESS
    _say_once(context, f"conditional {use}", f"warpsim: a graph with conditional nodes cannot be {use}, as "
              "in CUDA: cudaErrorNotSupported")
    return context.fail(CODES["cudaErrorNotSupported"])


def launching(context, nodes: list):
    """What a launch of an executable graph of these nodes does around running them: each handle its
    conditional nodes use is set to its default (those made with cudaGraphCondAssignDefault) and
    open for kernels to set while the launch runs (a context manager)."""
    table = conditions(context.device.memory)
    used = {node.params[0] for node in conditionals(nodes)}
    known = _handles(context)
    for handle in used:
        found = known.get(handle)
        if found is not None and found.assign_default:
            table.values[handle] = found.default
    return table.opened(used)


def run_conditional(context, node, run_body) -> int:
    """Run a conditional node of a launch: the body (for WHILE, the body again and again) its handle's
    value chooses, each through run_body(body graph) -> cudaError_t."""
    handle, kind, size = node.params
    values = conditions(context.device.memory).values
    if kind == COND_WHILE:
        while values.get(handle, 0) and not context.sticky_error:
            code = run_body(node.bodies[0])
            if code:
                return code
        return SUCCESS
    value = values.get(handle, 0)
    chosen = value if kind == COND_SWITCH else 0 if value else 1
    return run_body(node.bodies[chosen]) if chosen < size else SUCCESS


def update_mismatch(old, new) -> bool:
    """Whether cudaGraphExecUpdate cannot give an executable graph's conditional node a graph's:
    their type or size differ (CUDA changes no conditional node's parameters)."""
    return old.params[1:] != new.params[1:]
