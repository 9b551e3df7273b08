"""Clusters, mapa, barrier.cluster and the reserved shared memory registers, from hand-written PTX,
against the values an H200 gave for the same kernel (validation/hopper/h200.npz)."""

import os

import numpy as np
import pytest

import warpsim as cp

from hopper_ptx import SPECIAL_WORDS, SPECIALS

H200 = os.path.join(os.path.dirname(__file__), "..", "..", "..", "validation", "hopper", "h200.npz")
SAME_AS_H200 = ("total_smem", "dynamic_smem", "ctarank", "nctarank", "clusterid", "nclusterid",
                "cluster_ctaid", "cluster_nctaid", "explicit_cluster", "neighbour_value", "aggr_smem",
                "cluster_nctaid_y")


def run_specials(**settings):
    out = cp.full((4 * 64, len(SPECIAL_WORDS)), 0xDEADBEEF, cp.uint32)
    with cp.settings(**settings):
        cp.RawModule(ptx=SPECIALS).get_function("specials")((4,), (64,), (out,), shared_mem=4096)
    return {name: out.get()[:, k] for k, name in enumerate(SPECIAL_WORDS)}


@pytest.mark.parametrize("batch_threads", [None, 64])
def test_cluster_registers_and_neighbour_reads(batch_threads):
    """A batch of one CTA's threads still runs whole clusters (2 CTAs) together."""
    got = run_specials(**({"batch_threads": batch_threads} if batch_threads else {}))
    cta, tid = np.divmod(np.arange(256), 64)
    np.testing.assert_array_equal(got["ctarank"], cta % 2)
    np.testing.assert_array_equal(got["clusterid"], cta // 2)
    np.testing.assert_array_equal(got["neighbour_value"], 1000 * (1 - cta % 2) + tid)
    assert set(got["nctarank"]) == {2} and set(got["explicit_cluster"]) == {1}
    # mapa to the own rank reads the same variable; generic mapa stays in the shared window
    assert (got["mapa_rank0"] != got["mapa_rank1"]).all()
    assert (got["generic_mapa_hi"] == got["generic_hi"]).all()


def test_reserved_shared_memory_region_as_on_the_h200():
    got = run_specials()
    begin = got["reserved_begin"]
    assert (begin >= got["total_smem"]).all()                # after the kernel's own bytes
    np.testing.assert_array_equal(got["reserved_end"] - begin, 288)
    np.testing.assert_array_equal(got["reserved_cap"] - begin, 1024)
    np.testing.assert_array_equal(got["reserved_0"], begin)
    np.testing.assert_array_equal(got["reserved_1"], begin)


@pytest.mark.skipif(not os.path.exists(H200), reason="no H200 recording")
def test_registers_equal_the_h200s():
    got, h200 = run_specials(), np.load(H200)["specials"]
    for k, name in enumerate(SPECIAL_WORDS):
        if name in SAME_AS_H200:
            np.testing.assert_array_equal(got[name], h200[:, k], err_msg=name)
    for name in ("reserved_end", "reserved_cap", "reserved_0", "reserved_1"):
        k = SPECIAL_WORDS.index(name)
        np.testing.assert_array_equal(got[name] - got["reserved_begin"], h200[:, k] - h200[:, 0])


def test_mapa_of_a_rank_outside_the_cluster_faults():
    ptx = SPECIALS.replace("xor.b32 %r12, %r8, 1;", "add.u32 %r12, %r8, 5;")
    out = cp.zeros((256, len(SPECIAL_WORDS)), cp.uint32)
    with pytest.raises(cp.MemoryFault, match="shared"):
        cp.RawModule(ptx=ptx).get_function("specials")((4,), (64,), (out,), shared_mem=4096)
