"""CUDA user objects: a pointer and a destructor callback, run when the last reference goes.

cudaUserObjectCreate makes an object with references the caller owns; cudaUserObjectRetain and
cudaUserObjectRelease add and drop the caller's. A graph owns references too
(cudaGraphRetainUserObject, or with cudaGraphUserObjectMove the caller's moved to it;
cudaGraphReleaseUserObject), and runtime/graphs.py keeps them as CUDA does: a copy of a graph
(cudaGraphClone, a child graph node, cudaGraphInstantiate's executable graph) owns references of its
own to its original's objects; a destroyed graph or executable graph, a destroyed child graph node,
and a child graph replaced by cudaGraphExecUpdate or cudaGraphExecChildGraphNodeSetParams give
theirs back. One count per object holds them all, and the destructor runs in the call that drops
it to zero. Every graph launch is complete when its call returns, so no launch in flight holds one
back (CUDA runs the destructor on an internal thread once such launches end; here the calling
thread runs it at once, and it must not call CUDA, as CUDA requires).

The functions register themselves in calls.IMPLEMENTED (warpsim.runtime.handlers imports this
module); the graph side, cudaGraph{Retain,Release}UserObject, is in runtime/graph_params.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from .calls import HOST_FUNCTION, INVALID_VALUE, SUCCESS, _write, call

NO_DESTRUCTOR_SYNC = 0x1          # cudaUserObjectNoDestructorSync: the one flag, and required
GRAPH_MOVE = 0x1                  # cudaGraphUserObjectMove: move the caller's references to the graph
COUNT_LIMIT = (1 << 31) - 1       # INT_MAX: the most references one call may add or drop


@dataclass(eq=False)
class UserObject:
    pointer: int
    destroy: int                  # a cudaHostFn_t
    references: int               # the caller's and every graph's together


def objects(context) -> dict:
    """handle -> UserObject, of the objects still alive."""
    return context.__dict__.setdefault("user_objects", {})


def valid_count(count: int) -> bool:
    return 0 < count <= COUNT_LIMIT


def retain(context, counts: dict) -> None:
    """Add references: counts maps object handles to how many."""
    for handle, count in counts.items():
        found = objects(context).get(handle)
        if found is not None:
            found.references += count


def release(context, counts: dict) -> None:
    """Drop references (counts: handle -> how many); an object left with none is destroyed."""
    for handle, count in list(counts.items()):
        found = objects(context).get(handle)
        if found is None:
            continue
        found.references -= count
        if found.references <= 0:
            del objects(context)[handle]
            HOST_FUNCTION(found.destroy)(found.pointer)


@call()
def cudaUserObjectCreate(context, out, pointer, destroy, initial_references, flags):
    if not out or not destroy or not valid_count(initial_references) or flags != NO_DESTRUCTOR_SYNC:
        return context.fail(INVALID_VALUE)
    handle = context.new_handle()
    objects(context)[handle] = UserObject(pointer, destroy, initial_references)
    _write(out, "Q", handle)
    return SUCCESS


@call()
def cudaUserObjectRetain(context, handle, count):
    if handle not in objects(context) or not valid_count(count):
        return context.fail(INVALID_VALUE)
    retain(context, {handle: count})
    return SUCCESS


@call()
def cudaUserObjectRelease(context, handle, count):
    """Drops references the caller owns (releasing more than it owns is undefined in CUDA: here they
    come off the one count)."""
    if handle not in objects(context) or not valid_count(count):
        return context.fail(INVALID_VALUE)
    release(context, {handle: count})
    return SUCCESS
