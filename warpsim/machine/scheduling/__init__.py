"""Scheduling models: which lanes of a warp issue next, and how `.sync`
warp instructions meet. The interface is `base.SchedulingModel`.

- `its` (Volta and later, the default for sm_70+): every thread has its own PC;
  divergent groups of a warp may interleave, so spin-waits complete.
- `stack` (before Volta): one PC per warp, a real SIMT reconvergence stack;
  divergent paths run one after the other until their immediate post-dominator.
- `lowest-pc`: each warp issues the lanes at its lowest block id; the same as
  `stack` on structured code, merging groups sooner on unstructured code.

`register_model` adds a model of one's own, selected by its name with
`warpsim.settings(scheduling=NAME)`.
"""

from __future__ import annotations

from ...settings import check_scheduling_with
from .base import NO_PC, SchedulingModel
from .its import IndependentThreadScheduling
from .lowest_pc import LowestPc
from .masks import mask_operand
from .stack import ReconvergenceStack
from .warp_stacks import WarpStacks
from .warp_sync import NamedLaneMeeting, lane_bits, lane_flags, member_masks

__all__ = ["SchedulingModel", "IndependentThreadScheduling", "ReconvergenceStack", "LowestPc",
           "NamedLaneMeeting", "WarpStacks", "MODELS", "register_model", "get_model", "model_for",
           "mask_operand", "member_masks", "lane_bits", "lane_flags", "NO_PC"]

MODELS: dict[str, SchedulingModel] = {}     # name -> model, in registration order


def register_model(model: SchedulingModel) -> SchedulingModel:
    """Make `model` selectable by its name (a later model of the same name replaces it)."""
    if not isinstance(model, SchedulingModel) or not model.name or model.name == "auto":
        raise ValueError(f"a scheduling model is a SchedulingModel with a name other than 'auto', "
                         f"not {model!r}")
    MODELS[model.name] = model
    _CHOSEN.clear()
    return model


def get_model(name: str) -> SchedulingModel:
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown scheduling model '{name}' "
                         f"(choose from auto, {', '.join(MODELS)})") from None


_CHOSEN: dict = {}     # (setting, module target) -> model, as model_for chose it (every launch asks)


def model_for(name: str, target: tuple) -> SchedulingModel:
    """'auto' picks its for sm_70 and later, stack before."""
    chosen = _CHOSEN.get((name, target))
    if chosen is None:
        chosen = _choose_model(name, target)
        if len(_CHOSEN) < 256:
            _CHOSEN[(name, target)] = chosen
    return chosen


def _choose_model(name: str, target: tuple) -> SchedulingModel:
    if name == "auto":
        arch = next((t for t in target if t.startswith("sm_")), "sm_90")
        digits = "".join(ch for ch in arch[3:] if ch.isdigit())
        name = "its" if int(digits or 90) >= 70 else "stack"
    return get_model(name)


for _model in (IndependentThreadScheduling(), ReconvergenceStack(), LowestPc()):
    register_model(_model)
check_scheduling_with(lambda: ["auto", *MODELS])
