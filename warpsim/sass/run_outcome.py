"""What a SASS run of a profiled launch came to (beside the PTX run, replay.py, or alone, alone.py),
and the scheduling model that decides whether it may run at all."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ReplayOutcome:
    level: str                      # 'sass': the SASS run covered the launch; 'ptx': it did not
    note: str = ""                  # why not, or what was checked
    observers: list = field(default_factory=list)
    seconds: float = 0.0            # the SASS run's time (copy and comparison included)
    rounds: int = 0
    unsupported: list = field(default_factory=list)   # (opcode, why) of each instruction the executor lacks

    @property
    def covered(self) -> bool:
        return self.level == "sass"


def scheduling_model(loaded_module) -> str:
    """The scheduling model a PTX run of the loaded module uses (settings' 'auto' resolved by its target)."""
    from ..machine.scheduling import model_for
    from ..settings import current
    return model_for(current().scheduling, getattr(loaded_module.module, "target", ()) or ()).name
