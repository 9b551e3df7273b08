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
    queues = {s.name: 0.0 for s in stations}
    residence = {s.name: s.demand for s in stations}
    x = 0.0
    n_max = max(1, int(customers))
    for n in range(1, n_max + 1):
        for s in stations:
            if s.servers == 0:
                residence[s.name] = s.demand
            elif s.servers == 1:
                residence[s.name] = s.demand * (1.0 + queues[s.name])
            else:
                m = s.servers
                residence[s.name] = s.demand / m * (1.0 + queues[s.name]) + s.demand * (m - 1) / m
        total = sum(residence.values())
        x = n / total if total > 0 else 0.0
        for s in stations:
            if s.servers == 0:
                queues[s.name] = 0.0
            elif s.servers == 1:
                queues[s.name] = x * residence[s.name]
            else:
                queues[s.name] = x * (residence[s.name] - s.demand * (s.servers - 1) / s.servers)
    return sum(residence.values()), dict(residence), x
