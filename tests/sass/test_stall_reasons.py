"""The stall-reason table is the one list: the metric names, the walk's and the model's reasons,
the scoreboard waits and the per-line attribution all agree with it."""

from __future__ import annotations

import inspect

from warpsim.metrics import names
from warpsim.sass.executor import PIPES
from warpsim.sass.stall_reasons import BY_NAME, CHIP, QUEUEING, STALL_REASONS, TAKEN_BRANCHES, WALK, produced_by
from warpsim.timing import lines, model, walk
from warpsim.timing.pipes import stall_reason_of_wait

COMPONENTS = (WALK, TAKEN_BRANCHES, QUEUEING, CHIP)


def test_names_are_unique_and_components_known():
    assert len(BY_NAME) == len(STALL_REASONS)
    for reason in STALL_REASONS:
        assert set(reason.produced_by) <= set(COMPONENTS), reason.name
        assert reason.metric == f"smsp__average_warps_issue_stalled_{reason.name}_per_issue_active.ratio"


def test_metrics_list_every_reason_once():
    assert names.STALL_REASONS == tuple(sorted(BY_NAME))
    metrics = [m.name for m in names.TIMING_METRICS if "issue_stalled" in m.name]
    assert sorted(metrics) == sorted(r.metric for r in STALL_REASONS)
    assert all(m in names.BY_NAME for m in metrics)


def test_the_models_lists_are_the_tables():
    assert walk.REASONS == ("selected", "wait", "short_scoreboard", "long_scoreboard", "barrier",
                            "branch_resolving")
    assert walk.DELAYS_OF_WALK == walk.REASONS[1:]
    assert model.DELAYS == walk.DELAYS_OF_WALK + ("no_instruction",)
    assert set(model.DELAYS) <= set(produced_by(WALK)) | set(produced_by(TAKEN_BRANCHES))


def test_every_pipe_waits_under_exactly_one_scoreboard_reason():
    for pipe in PIPES:
        owners = [r.name for r in STALL_REASONS if pipe in r.scoreboard_pipes]
        assert len(owners) == 1, (pipe, owners)
        assert stall_reason_of_wait(pipe) == owners[0]
    assert stall_reason_of_wait("global") == "long_scoreboard" and stall_reason_of_wait("mufu") == "short_scoreboard"


def test_reasons_the_model_charges_are_in_the_table_and_have_a_line_weight():
    source = inspect.getsource(model)
    charged = {name for name in BY_NAME if f'"{name}"' in source}
    produced = {r.name for r in STALL_REASONS if r.produced_by}
    assert charged <= produced
    weights = inspect.getsource(lines._weights)
    for name in produced:
        assert f'"{name}"' in weights, f"timing/lines.py gives {name} no per-instruction weight"
