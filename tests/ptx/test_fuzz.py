"""Fuzzing the parser, verifier, loader and launcher with mutated real PTX (hypothesis).

The default run draws 200 mutants (one edit to three per module) of the
modules in tests/ptx/fuzz_seeds; every one must load and launch or fail with
a WarpsimError. WARPSIM_FUZZ_EXAMPLES raises the count for a longer campaign;
`python tests/ptx/fuzz_target.py N SEED` runs one without hypothesis and
groups what escapes by exception and place. Crash classes found are kept in
test_robustness.py.
"""

import os
import sys
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from fuzz_target import run_one  # noqa: E402
from ptx_mutations import mutate, seeds  # noqa: E402

SEEDS = seeds()
EXAMPLES = int(os.environ.get("WARPSIM_FUZZ_EXAMPLES", "200"))
edits = st.lists(st.integers(0, (1 << 16) - 1), min_size=2, max_size=6)


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(sorted(SEEDS)), choices=edits)
def test_mutated_ptx_fails_only_with_warpsim_errors(seed, choices):
    escaped = run_one(mutate(SEEDS[seed], choices))
    assert escaped is None, f"{type(escaped).__name__}: {escaped}"


@settings(max_examples=50, deadline=None, database=None)
@given(text=st.text(alphabet=".%{}()[]<>,;:@!|+-_0123456789abcdefgxyzuvwprs \n", max_size=200))
def test_random_text_fails_only_with_warpsim_errors(text):
    escaped = run_one(".version 8.5\n.target sm_90\n.address_size 64\n" + text)
    assert escaped is None, f"{type(escaped).__name__}: {escaped}"
