"""The launch progress bar: drawn on a terminal for slow launches, silent otherwise."""

import io

from warpsim.machine import device


class FakeStderr(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def drive(monkeypatch, tty: bool, seconds: float) -> str:
    err = FakeStderr(tty)
    monkeypatch.setattr(device.sys, "stderr", err)
    clock = iter([100.0] + [100.0 + seconds] * 10)
    monkeypatch.setattr(device.time, "perf_counter", lambda: next(clock))
    bar = device._Progress(8, "block_sum")
    for done in (2, 4, 8):
        bar.update(done)
    bar.close()
    return err.getvalue()


def test_progress_on_a_terminal_after_a_second(monkeypatch):
    out = drive(monkeypatch, tty=True, seconds=2.0)
    assert "8/8 CTAs" in out and "block_sum" in out and out.endswith("\n")


def test_progress_quiet_when_not_a_terminal(monkeypatch):
    assert drive(monkeypatch, tty=False, seconds=5.0) == ""


def test_progress_quiet_for_fast_launches(monkeypatch):
    assert drive(monkeypatch, tty=True, seconds=0.2) == ""
