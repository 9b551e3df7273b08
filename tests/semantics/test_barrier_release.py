"""semantics/barriers.py against a per-barrier reference: which waiting threads a CTA barrier releases.

The PTX machine's release_barriers and the SASS executor's BAR wait both call
`release`; the reference counts each (CTA, barrier) key's waiters and earlier
arrivals against the count the instruction names, or the CTA's live threads.
"""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.semantics.barriers import (BARRIERS_PER_CTA, cluster_arrive, cluster_wait, count_arrivals,
                                       reduce_predicate, release)


def _reference(keys, counts, live_per_cta, arrivals):
    done = {}
    for key in set(int(k) for k in keys):
        waiters = [i for i, k in enumerate(keys) if k == key]
        named = max(int(counts[i]) for i in waiters)
        expected = named if named > 0 else int(live_per_cta[key // BARRIERS_PER_CTA])
        done[key] = len(waiters) + arrivals.get(key, 0) >= expected
    return np.array([done[int(k)] for k in keys], dtype=bool)


@pytest.mark.parametrize("seed", range(20))
def test_release_matches_reference(seed):
    rng = np.random.default_rng(seed)
    n_ctas = int(rng.integers(1, 5))
    live_per_cta = rng.integers(1, 40, size=n_ctas)
    n = int(rng.integers(1, 60))
    keys = rng.integers(0, n_ctas, size=n) * BARRIERS_PER_CTA + rng.integers(0, 3, size=n)
    counts = np.where(rng.random(n) < 0.3, rng.integers(1, 12, size=n) * 4, 0) if seed % 2 else np.zeros(n, int)
    arrivals = {int(k): int(rng.integers(0, 30)) for k in rng.choice(keys, size=min(3, n))}
    want = _reference(keys, counts, live_per_cta, arrivals)
    left = dict(arrivals)
    got = release(keys, counts, live_per_cta, left)
    assert np.array_equal(got, want)
    released = {int(k) for k in keys[want]}
    assert left == {k: v for k, v in arrivals.items() if k not in released}, "released keys' arrivals are spent"


def test_count_arrivals_adds_per_key():
    arrivals = {5: 2}
    count_arrivals(arrivals, np.array([5, 5, 17, 5, 3]))
    assert arrivals == {5: 5, 17: 1, 3: 1}


def test_reduce_predicate_per_key():
    keys = np.array([1, 1, 1, 2, 2, 7])
    pred = np.array([True, False, True, True, True, False])
    assert reduce_predicate("popc", keys, pred).tolist() == [2, 2, 2, 2, 2, 0]
    assert reduce_predicate("and", keys, pred).tolist() == [False, False, False, True, True, False]
    assert reduce_predicate("or", keys, pred).tolist() == [True, True, True, True, True, False]


@pytest.mark.parametrize("seed", range(4))
def test_cluster_phase_completes_when_every_live_thread_arrived(seed):
    """barrier.cluster / UCGABAR: a cluster's phase completes once its live threads have all arrived;
    a thread that exited does not hold it, and a completed phase uses its arrivals up."""
    rng = np.random.default_rng(seed)
    cluster_of = rng.integers(0, 3, size=96)
    alive = rng.random(96) < 0.8
    arrived, phase = {}, {}
    early = np.flatnonzero(alive & (rng.random(96) < 0.6))
    waiting = np.zeros(96, dtype=np.int64)
    waiting[early] = cluster_arrive(arrived, phase, cluster_of[early])
    late = np.setdiff1d(np.flatnonzero(alive), early)
    waiting[late] = cluster_arrive(arrived, phase, cluster_of[late])
    done, released = cluster_wait(arrived, phase, cluster_of, alive, cluster_of[early], waiting[early])
    assert done.all() and sorted(released) == sorted(set(int(k) for k in cluster_of[early]))
    assert all(arrived[k] == 0 for k in released)
    again, none = cluster_wait(arrived, phase, cluster_of, alive, cluster_of[early], waiting[early] + 1)
    assert not again.any() and none == []
