"""The compiled tier: basic blocks as machine code through Numba, beside the NumPy tier.

block.py generates per-lane source from the instruction table (compiled
emitters in scalar.py, exact helpers in runtime.py); tier.py picks, per block,
which tier runs it (`warpsim.settings(engine=...)`, WARPSIM_ENGINE); rounds.py is the
select phase and loop.py the whole scheduling round as machine code.
"""

from . import fused  # noqa: F401 (registers the processor's f64 fma with semantics/floatbits)
from .tier import ENGINES, LONG_BATCH_ROUNDS, block_tier, check_engine, compiled_loop, compiled_rounds, report

__all__ = ["ENGINES", "LONG_BATCH_ROUNDS", "block_tier", "check_engine", "compiled_loop", "compiled_rounds", "report"]
