"""The event clock switch (event_time: 'gpu' or 'wall'), as a setting and as `warpsim --event-time`."""

import os

import pytest

import warpsim
from warpsim.cli import UsageError, take_global_options
from warpsim.settings import current as current_settings


def test_setting_accepts_gpu_and_wall_only():
    with warpsim.settings(event_time="wall") as current:
        assert current.event_time == "wall"
    assert current_settings().event_time == "gpu"
    with pytest.raises(ValueError, match="event_time"):
        with warpsim.settings(event_time="cpu"):
            pass


def test_global_option_sets_the_environment(monkeypatch):
    monkeypatch.setenv("WARPSIM_EVENT_TIME", "gpu")       # restored (unset) after the test
    assert take_global_options(["--event-time", "wall", "run", "x.py"]) == ["run", "x.py"]
    assert os.environ["WARPSIM_EVENT_TIME"] == "wall"
    with pytest.raises(UsageError, match="--event-time"):
        take_global_options(["--event-time=cpu", "run", "x.py"])
