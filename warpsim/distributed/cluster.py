"""Which Dask cluster does the work: a Client given, a scheduler address, or a LocalCluster.

A LocalCluster runs worker processes of one thread each (the simulator holds
the GIL most of the time, so threads would not run in parallel), one per core
unless told otherwise. Sweeps start one and stop it when they finish; sharded
launches keep one per worker count for the rest of the process, since starting
workers costs seconds and a program launches many kernels.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os

_kept: dict = {}                # worker count or address -> Client, for sharded launches


def local_cluster(workers: int | None = None):
    """A LocalCluster of `workers` one-thread processes (default: every core)."""
    from dask.distributed import LocalCluster
    import dask
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)   # returning every freed 64 KB to the OS makes each
    try:                                          # of the simulator's big temporaries fault its pages
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):   # in anew: 3x slower
            return LocalCluster(n_workers=int(workers or os.cpu_count() or 1), threads_per_worker=1,
                                processes=True, dashboard_address=":0",  # any free port
                                silence_logs=logging.ERROR)
    except RuntimeError as exc:
        raise RuntimeError(f"{exc} Dask's worker processes import the main script: put the code "
                           "that sweeps or shards under `if __name__ == \"__main__\":`") from exc


def connect(scheduler):
    """A Client for a scheduler given as a Client (returned as is) or an address."""
    from dask.distributed import Client
    return scheduler if isinstance(scheduler, Client) else Client(scheduler)


@contextlib.contextmanager
def client_for_sweep(scheduler=None, workers: int | None = None):
    """A Client for one sweep; a LocalCluster it starts is stopped at the end."""
    if scheduler is not None:
        client = connect(scheduler)
        try:
            yield client
        finally:
            if client is not scheduler:
                client.close()
        return
    from dask.distributed import Client
    with local_cluster(workers) as cluster, Client(cluster) as client:
        yield client


def client_for_launches(scheduler=None, workers: int = 0):
    """The Client sharded launches use, kept for the process (closed at exit)."""
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler
    key = scheduler or int(workers)
    client = _kept.get(key)
    if client is None or client.status not in ("running", "connecting"):
        from dask.distributed import Client
        client = Client(scheduler) if scheduler else Client(local_cluster(workers))
        _kept[key] = client
    return client


def worker_count(client) -> int:
    return max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))


def on_this_host(client) -> bool:
    """Whether every worker runs on this machine (it listens on the loopback), so files in
    /dev/shm reach it."""
    addresses = client.scheduler_info(n_workers=-1).get("workers", {})
    return bool(addresses) and all(address.startswith(("tcp://127.", "inproc://", "tcp://localhost:"))
                                   for address in addresses)


def dashboard_link(client) -> str:
    """The dashboard's address, or '' when the cluster serves none (it needs bokeh)."""
    try:
        info = client.scheduler_info(n_workers=0)
        return client.dashboard_link if info.get("services", {}).get("dashboard") else ""
    except Exception:            # an old scheduler, or one that does not say
        return ""


@atexit.register
def _close_kept() -> None:
    for client in _kept.values():
        cluster = client.cluster
        with contextlib.suppress(Exception):
            client.close()
            if cluster is not None:
                cluster.close()
    _kept.clear()
