"""A cluster shape given at launch (cudaLaunchKernelEx's cluster attribute) to a kernel that
declares none: the same registers and neighbour reads as the kernel declaring it (test_clusters)."""

import struct

import numpy as np
import pytest

import warpsim as cp
from warpsim.errors import ClusterSizeMismatch, MemoryFault

from hopper_ptx import SPECIAL_WORDS, SPECIALS

UNDECLARED = SPECIALS.replace(".reqnctapercluster 2, 1, 1", "")


def _launch(ptx, grid, cluster_dims, **settings):
    _, loaded = cp.RawModule(ptx=ptx)._loaded_module()
    out = cp.full((grid * 64, len(SPECIAL_WORDS)), 0xDEADBEEF, cp.uint32)
    with cp.settings(**settings):
        loaded.launch("specials", (grid, 1, 1), (64, 1, 1), struct.pack("<Q", out.data.ptr),
                      shared_mem=4096, cluster_dims=cluster_dims)
    return {name: out.get()[:, k] for k, name in enumerate(SPECIAL_WORDS)}


@pytest.mark.parametrize("batch_threads", [None, 64])
def test_launch_cluster_runs_as_a_declared_one(batch_threads):
    assert ".reqnctapercluster" not in UNDECLARED.split(".entry specials")[1].split("{")[0]
    got = _launch(UNDECLARED, 4, (2, 1, 1), **({"batch_threads": batch_threads} if batch_threads else {}))
    cta, tid = np.divmod(np.arange(256), 64)
    np.testing.assert_array_equal(got["ctarank"], cta % 2)
    np.testing.assert_array_equal(got["clusterid"], cta // 2)
    np.testing.assert_array_equal(got["neighbour_value"], 1000 * (1 - cta % 2) + tid)
    assert set(got["nctarank"]) == {2} and set(got["explicit_cluster"]) == {1}


def test_a_launch_may_repeat_the_declared_shape():
    got = _launch(SPECIALS, 4, (2, 1, 1))
    assert set(got["nctarank"]) == {2} and set(got["explicit_cluster"]) == {1}


def test_without_a_launch_cluster_a_cta_is_its_own_cluster():
    """The kernel reads rank 1's shared memory: in a cluster of one CTA that rank does not exist."""
    with pytest.raises(MemoryFault, match="shared::cluster|outside the block"):
        _launch(UNDECLARED, 2, None)


@pytest.mark.parametrize("ptx, grid, dims, why", [
    (UNDECLARED, 3, (2, 1, 1), "not a whole number of clusters"),
    (SPECIALS, 4, (4, 1, 1), "declares its cluster shape"),
    (UNDECLARED, 4, (0, 1, 1), "three positive sizes"),
])
def test_refused_launch_clusters(ptx, grid, dims, why):
    with pytest.raises(ClusterSizeMismatch, match=why):
        _launch(ptx, grid, dims)
