"""Mean value analysis of one SM as a closed queueing network whose customers are its resident warps.

Each warp cycles through stations: the issue slot and pipes of its
sub-partition (m servers, one per sub-partition the SM's warps occupy), the
SM's MIO (shared-memory wavefronts), L1 (global tags), and its share of the L2
and HBM bandwidth (one server each), and a delay station for everything that
waits without holding a resource (fixed stall counts, unloaded latencies,
barriers). Exact MVA for single-server stations (Reiser and Lavenberg),
Seidmann's approximation for the m-server ones (a queue of demand D/m plus a
delay of D(m-1)/m). The result is the time a population of W warps takes
for its demands, and each station's residence, which is where the stall
reasons come from: more warps hide latency until one station saturates.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Station:
    name: str
    demand: float          # cycles one warp needs at this station over its lifetime
    servers: int = 1       # 0: a delay station (no queueing)


def mva(stations: list, customers: int) -> tuple:
    """(cycle time of one warp with `customers` resident, residence per station, throughput)."""
    # (lists in the stations' order, not dicts by name: a profiled launch's model runs this some
    # ten times over up to 64 customers; the sums add in the same order either way)
    demand = [s.demand for s in stations]
    residence = list(demand)           # a delay station's residence is its demand, and its queue empty
    queues = [0.0] * len(stations)
    single = [k for k, s in enumerate(stations) if s.servers == 1]
    multi = [(k, s.demand / s.servers, s.demand * (s.servers - 1) / s.servers)
             for k, s in enumerate(stations) if s.servers > 1]
    x = 0.0
    n_max = max(1, int(customers))
    for n in range(1, n_max + 1):
        for k in single:
            residence[k] = demand[k] * (1.0 + queues[k])
        for k, share, held in multi:
            residence[k] = share * (1.0 + queues[k]) + held
        total = sum(residence)
        x = n / total if total > 0 else 0.0
        for k in single:
            queues[k] = x * residence[k]
        for k, share, held in multi:
            queues[k] = x * (residence[k] - held)
    return sum(residence), {s.name: r for s, r in zip(stations, residence)}, x
