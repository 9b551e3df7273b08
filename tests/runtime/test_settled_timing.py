"""A kernel launched again and again with one shape is timed until its predictions settle, then takes
the last for a few launches and is timed again (runtime/calls.py): what a program's CUDA events see
costs a timing sample only now and then."""

from types import SimpleNamespace

from warpsim.runtime import calls


def _context():
    return SimpleNamespace(clock_on=True)


def _timing(seconds):
    return SimpleNamespace(time_s=seconds, details={})


def test_settles_after_agreeing_predictions_and_is_timed_again_every_few_launches():
    context, key = _context(), ("kernel", (4, 1, 1), (128, 1, 1))
    timed = 0
    for launch in range(40):
        settled = calls._settled_timing(context, key)
        if settled is None:
            timed += 1
            calls._note_timing(context, key, _timing(1e-5 * (1 + 1e-4 * (launch % 2))))
        else:
            assert settled.time_s >= 1e-5
    # four to settle, then one launch in RESAMPLE_EVERY timed again
    assert timed == calls.SETTLE_AFTER + (40 - calls.SETTLE_AFTER) // calls.RESAMPLE_EVERY


def test_predictions_that_drift_are_timed_every_launch():
    context, key = _context(), ("kernel", (4, 1, 1), (128, 1, 1))
    for launch in range(20):
        assert calls._settled_timing(context, key) is None
        calls._note_timing(context, key, _timing(1e-5 * 1.05 ** launch))


def test_a_change_after_settling_unsettles():
    context, key = _context(), ("kernel",)
    for _ in range(calls.SETTLE_AFTER):
        calls._note_timing(context, key, _timing(2e-5))
    assert calls._settled_timing(context, key).time_s == 2e-5
    calls._note_timing(context, key, _timing(4e-5))          # a re-timed launch that differs
    assert calls._settled_timing(context, key) is None
