"""The verifier against ptxas on operand-type mutants of real kernels (tests/ptx/type_mutations.py).

For each mutant, ptxas (-arch=sm_90) and warpsim's loader judge the module: where ptxas
rejects, warpsim must reject at load with the mutated instruction's line:column; where
ptxas accepts, warpsim must load it. Two classes of ptxas's refusals are known gaps, kept
visible here: instruction types an emitted entry of the instruction table does not restrict
(ld/st/mov/shfl/cvt with a type the PTX ISA does not allow them, 'Unexpected instruction
types'), and immediate ranges (a barrier number past 15). The default run takes 12 mutants
of the smaller modules (a few seconds); the slow ones every module and 300 mutants
(`python tests/ptx/type_mutations.py 300 0` prints the agreement figure).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from warpsim.errors import PtxVerifyError

sys.path.insert(0, str(Path(__file__).parent))
from type_mutations import judge, sample, seeds  # noqa: E402

pytestmark = [pytest.mark.sass, pytest.mark.nvrtc]

KNOWN_GAPS = ("Unexpected instruction types specified", "out of range")


@pytest.fixture(scope="module")
def texts():
    return seeds()


@pytest.fixture(scope="module")
def small_texts(texts):
    return {name: text for name, text in texts.items() if text.count("\n") < 500}


def _check(mutants) -> tuple[int, int, list]:
    """(agreeing, known gaps, disagreements) over the mutants."""
    agree, gaps, wrong = 0, 0, []
    for mutant in mutants:
        verdict = judge(mutant)
        if verdict["ptxas"] == verdict["warpsim"]:
            agree += 1
            error = verdict["warpsim_error"]
            if error is not None and isinstance(error, PtxVerifyError):
                lines = {line for line, _, _ in error.problems}
                if mutant.line not in lines:
                    wrong.append((mutant, f"rejected at lines {sorted(lines)}, not the mutated {mutant.line}"))
            continue
        if not verdict["ptxas"] and any(gap in verdict["ptxas_error"] for gap in KNOWN_GAPS):
            gaps += 1
            continue
        wrong.append((mutant, f"ptxas {'accepts' if verdict['ptxas'] else 'rejects: ' + verdict['ptxas_error']}"
                              f"; warpsim {'accepts' if verdict['warpsim'] else verdict['warpsim_error']}"))
    return agree, gaps, wrong


@pytest.mark.slow
def test_the_unmutated_kernels_load_as_ptxas_compiles_them(texts):
    from type_mutations import ptxas_accepts, warpsim_verdict
    for name, text in texts.items():
        assert ptxas_accepts(text)[0] and warpsim_verdict(text)[0], name


def test_warpsim_rejects_what_ptxas_rejects_and_accepts_what_it_accepts(small_texts):
    mutants = sample(12, seed=1, texts=small_texts)
    agree, gaps, wrong = _check(mutants)
    assert not wrong, "\n".join(f"{m!r}: {why}" for m, why in wrong)
    assert agree + gaps == len(mutants)


@pytest.mark.slow
def test_agreement_over_300_mutants(texts):
    mutants = sample(300, seed=0, texts=texts)
    agree, gaps, wrong = _check(mutants)
    assert not wrong, "\n".join(f"{m!r}: {why}" for m, why in wrong[:20])
    assert agree / len(mutants) > 0.95
