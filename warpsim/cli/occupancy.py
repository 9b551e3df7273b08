"""`warpsim occupancy`: the CUDA occupancy calculator's figures for one launch shape."""

from __future__ import annotations

import argparse
import json
import sys

from ..metrics.occupancy import ARCHS, occupancy, occupancy_summary
from ..report.occupancy import occupancy_table
from ..report.console import make_console


def main(argv=None) -> int:
    """`warpsim occupancy --block 256 --regs 32 --smem 4096 --arch sm_90`."""
    parser = argparse.ArgumentParser(prog="warpsim occupancy",
                                     description="Theoretical occupancy of a kernel launch, as the "
                                                 "CUDA occupancy calculator computes it.")
    parser.add_argument("--block", type=int, required=True, help="threads per block")
    parser.add_argument("--regs", type=int, default=32, help="registers per thread (ptxas -v)")
    parser.add_argument("--smem", type=int, default=0, help="shared memory per block, bytes "
                                                            "(static + dynamic)")
    parser.add_argument("--arch", default="sm_90", help=f"one of {', '.join(ARCHS)}")
    parser.add_argument("--carveout", type=int, default=None,
                        help="shared-memory configuration of the SM, KB (default: the driver's choice)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        occ = occupancy(args.block, args.regs, args.smem, args.arch, args.carveout)
    except ValueError as exc:
        print(f"warpsim occupancy: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(occ.as_dict(), indent=2))
    else:
        console = make_console()
        console.print(occupancy_table(occ))
        console.print(occupancy_summary(occ), soft_wrap=True)
    return 0 if not occ.problems else 1


if __name__ == "__main__":
    sys.exit(main())
