"""Split set 3 once into a development half and a held-out half, before any prediction is looked at.

    python validation/timing/set3/split3.py      # writes split3.json (committed; never rerun to change it)

Within each sweep (in cases3.py's order) the configurations alternate between the halves; which
half takes the first one is drawn per sweep from a generator seeded with SEED. Every sweep thus
has configurations in both halves, and the rank correlation and best pick are reported per half.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SEED = 20261202


def main() -> int:
    from cases3 import sweeps
    rng = np.random.default_rng(SEED)
    half = {}
    for name, launches in sweeps().items():
        first = int(rng.integers(2))
        for i, launch in enumerate(launches):
            half[launch.label] = "dev" if (i + first) % 2 == 0 else "held-out"
    path = os.path.join(HERE, "split3.json")
    with open(path, "w") as fh:
        json.dump({"seed": SEED, "rule": "alternate within each sweep, first half drawn per sweep",
                   "half": half}, fh, indent=1)
    print(f"{path}: {sum(v == 'dev' for v in half.values())} dev, "
          f"{sum(v == 'held-out' for v in half.values())} held-out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
