"""What cudaMemAdvise and cudaMemPrefetchAsync have said of managed memory, for cudaMemRangeGetAttribute[s].

Managed memory has one address for host and device (docs/programs.md), so advice and prefetches move
nothing; they are kept, in the order given, as (start, end, advice, location) notes, and a query of a
range replays the notes over each piece of it between their boundaries. As CUDA reports a range:

- ReadMostly: 1 if every byte of the range is read-mostly;
- PreferredLocation and LastPrefetchLocation: the device (0) or cudaCpuDeviceId (-1, a host location)
  if the whole range has that one, else cudaInvalidDeviceId (-2); their ...Type and ...Id forms give
  the cudaMemLocationType (cudaMemLocationTypeInvalid, 0, where not one) and its id;
- AccessedBy: the devices set for the whole range, the rest of the array cudaInvalidDeviceId.

An attribute of 4-byte results needs dataSize 4; AccessedBy a non-zero multiple of 4; else
cudaErrorInvalidValue. runtime/memory_pools.py has the functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SET_READ_MOSTLY, UNSET_READ_MOSTLY, SET_PREFERRED, UNSET_PREFERRED, SET_ACCESSED_BY, UNSET_ACCESSED_BY = range(1, 7)
PREFETCH = 0                                # a prefetch's note (no cudaMemoryAdvise has 0)
READ_MOSTLY, PREFERRED, ACCESSED_BY, LAST_PREFETCH = 1, 2, 3, 4              # cudaMemRangeAttribute
PREFERRED_TYPE, PREFERRED_ID, LAST_PREFETCH_TYPE, LAST_PREFETCH_ID = 5, 6, 7, 8
CPU_DEVICE, INVALID_DEVICE = -1, -2         # cudaCpuDeviceId, cudaInvalidDeviceId
LOCATION_INVALID, LOCATION_DEVICE = 0, 1    # cudaMemLocationType
HOST_ANY_ID = (2, 4)                        # cudaMemLocationTypeHost, ...HostNumaCurrent: their id is ignored


@dataclass
class RangeState:
    """What the notes leave on one piece of a range."""
    read_mostly: bool = False
    preferred: tuple | None = None          # (cudaMemLocationType, id)
    accessed_by: set = field(default_factory=set)
    last_prefetch: tuple | None = None


def _notes(context) -> list:
    return context.__dict__.setdefault("managed_notes", [])


def note(context, address: int, count: int, advice: int, location: tuple) -> None:
    """Keep an advice (or PREFETCH) given for [address, address + count) with its (type, id) location (a
    location whose id CUDA ignores, the host or its current NUMA node, with id 0)."""
    kind, identifier = location
    _notes(context).append((address, address + count, advice, (kind, 0 if kind in HOST_ANY_ID else identifier)))


def _apply(state: RangeState, advice: int, location: tuple) -> None:
    if advice == PREFETCH:
        state.last_prefetch = location
    elif advice in (SET_READ_MOSTLY, UNSET_READ_MOSTLY):
        state.read_mostly = advice == SET_READ_MOSTLY
    elif advice in (SET_PREFERRED, UNSET_PREFERRED):
        state.preferred = location if advice == SET_PREFERRED else None
    elif advice == SET_ACCESSED_BY:
        state.accessed_by.add(location)
    else:
        state.accessed_by.discard(location)


def _states(context, start: int, end: int) -> list:
    """The RangeState of each piece of [start, end) between the notes' boundaries."""
    notes = [n for n in _notes(context) if n[0] < end and n[1] > start]
    cuts = sorted({start, end} | {x for lo, hi, _, _ in notes for x in (lo, hi) if start < x < end})
    states = []
    for lo, hi in zip(cuts, cuts[1:]):
        state = RangeState()
        for first, last, advice, location in notes:
            if first <= lo and hi <= last:
                _apply(state, advice, location)
        states.append(state)
    return states


def _one(locations: list):
    """The location all pieces share, or None."""
    return locations[0] if locations and all(x == locations[0] for x in locations) else None


def _device_id(location) -> int:
    if location is None:
        return INVALID_DEVICE
    return location[1] if location[0] == LOCATION_DEVICE else CPU_DEVICE


def attribute(context, address: int, count: int, attribute_id: int, size: int) -> list | None:
    """The ints cudaMemRangeGetAttribute writes for a managed range, or None where CUDA refuses."""
    states = _states(context, address, address + count)
    if attribute_id == ACCESSED_BY:
        if not size or size % 4:
            return None
        devices = sorted(set.intersection(*[{_device_id(x) for x in s.accessed_by} for s in states]))
        return (devices + [INVALID_DEVICE] * (size // 4))[:size // 4]
    if size != 4:
        return None
    preferred = _one([s.preferred for s in states])
    prefetched = _one([s.last_prefetch for s in states])
    values = {READ_MOSTLY: int(all(s.read_mostly for s in states)),
              PREFERRED: _device_id(preferred), LAST_PREFETCH: _device_id(prefetched),
              PREFERRED_TYPE: preferred[0] if preferred else LOCATION_INVALID,
              PREFERRED_ID: preferred[1] if preferred else INVALID_DEVICE,
              LAST_PREFETCH_TYPE: prefetched[0] if prefetched else LOCATION_INVALID,
              LAST_PREFETCH_ID: prefetched[1] if prefetched else INVALID_DEVICE}
    return [values[attribute_id]] if attribute_id in values else None
