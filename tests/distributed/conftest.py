"""One 2-worker LocalCluster for every test of the package (starting workers costs seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def client():
    pytest.importorskip("dask.distributed")
    from warpsim.distributed import cluster
    return cluster.client_for_launches(None, 2)
