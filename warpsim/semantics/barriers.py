"""CTA barriers: arrivals, release, and bar.red's reduction, for PTX's bar/barrier and SASS's BAR.

One integer names a barrier of a CTA of the batch: its key, cta slot *
BARRIERS_PER_CTA + barrier id. A barrier releases the threads waiting at it
once as many threads have arrived as it expects: the count the instruction
names (bar.sync a, b; BAR.SYNC a, b), or every live thread of the CTA when it
names none. Threads that arrive without waiting (bar.arrive, BAR.ARV) are kept
per key until the barrier they count towards is released.
"""

from __future__ import annotations

import numpy as np

BARRIERS_PER_CTA = 16      # named barriers 0..15


def count_arrivals(arrivals: dict, keys) -> None:
    """bar.arrive / BAR.ARV: add each key's arriving threads to `arrivals` (key -> threads)."""
    for key, count in zip(*np.unique(keys, return_counts=True)):
        arrivals[int(key)] = arrivals.get(int(key), 0) + int(count)


def release(keys: np.ndarray, counts: np.ndarray | None, live_per_cta: np.ndarray, arrivals: dict) -> np.ndarray:
    """Per waiting thread (its barrier key, the count its instruction names or 0): whether its
    barrier is released now; released keys leave `arrivals`.

    Waiters are counted per key with bincount (keys are below the CTAs times BARRIERS_PER_CTA):
    np.unique and np.maximum.at took over half of a barrier-heavy launch (CuPy's reductions: one
    shared-memory tree per output, a bar.sync per level)."""
    per_key = np.bincount(keys, minlength=len(live_per_cta) * BARRIERS_PER_CTA)
    waited = np.flatnonzero(per_key)
    if counts is not None and counts.any():     # a count names the threads, not the CTA's live ones
        wanted = np.zeros(len(per_key), dtype=np.int64)
        np.maximum.at(wanted, keys, counts)
        wanted = wanted[waited]
    else:
        wanted = np.zeros(len(waited), dtype=np.int64)
    expected = np.where(wanted > 0, wanted, live_per_cta[waited // BARRIERS_PER_CTA])
    arrived = per_key[waited]
    if arrivals:
        arrived = arrived + np.array([arrivals.get(int(k), 0) for k in waited])
    done = arrived >= expected
    if not done.any():
        return np.zeros(len(keys), dtype=bool)
    for key in waited[done]:
        arrivals.pop(int(key), None)
    released = np.zeros(len(per_key), dtype=bool)
    released[waited[done]] = True
    return released[keys]


def reduce_predicate(op: str, keys, pred) -> np.ndarray:
    """bar.red.{popc,and,or}: per thread, over the threads with its key: the count of true
    predicates (uint32), whether all were true, or whether any was."""
    _, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.ravel()
    trues = np.bincount(inverse, weights=pred)
    if op == "popc":
        return trues[inverse].astype(np.uint32)
    if op == "and":
        return (trues == np.bincount(inverse))[inverse]
    if op == "or":
        return (trues > 0)[inverse]
    raise ValueError(f"barrier reduction {op!r}")


# ------------------------------------------------------------ barrier.cluster (UCGABAR_ARV/WAIT)
# A cluster's barrier counts arrivals per phase: `arrived` and `phase` map a cluster's key to its
# arrivals not yet released and its completed phases; a thread remembers the phase it arrived in.

def cluster_arrive(arrived: dict, phase: dict, keys) -> list:
    """Count each thread's arrival in its cluster (keys); the phase each arrived in."""
    for key, count in zip(*np.unique(keys, return_counts=True)):
        arrived[int(key)] = arrived.get(int(key), 0) + int(count)
    return [phase.get(int(k), 0) for k in keys]


def cluster_wait(arrived: dict, phase: dict, cluster_of, alive, keys, arrived_in) -> tuple:
    """(per waiting thread: whether the phase it arrived in has completed, the clusters released now).

    A cluster among `keys` completes its phase once its live threads (`alive` over every thread
    of the batch, `cluster_of` their clusters) have all arrived; those arrivals are used up."""
    released = []
    for key in np.unique(keys):
        key = int(key)
        live = int(np.count_nonzero(alive & (cluster_of == key)))
        if arrived.get(key, 0) >= live:                 # everyone still running has arrived
            arrived[key] = arrived.get(key, 0) - live
            phase[key] = phase.get(key, 0) + 1
            released.append(key)
    current = np.array([phase.get(int(k), 0) for k in keys], dtype=np.int64)
    return current > arrived_in, released
