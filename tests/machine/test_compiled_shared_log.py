"""One log for the warps several observers of a round loop ask to have logged
(machine/compiled/shared_log.py): the union of their warps, and each observer's own rows."""

from types import SimpleNamespace

import numpy as np

from warpsim.machine.compiled.shared_log import record_for, shared_rows


def test_the_log_holds_every_warp_any_observer_names_in_warp_order():
    trace = np.array([0, 1, -1, -1, -1, -1])          # the first two warps
    sample = np.array([-1, 0, -1, -1, 1, -1])         # warps 1 and 4
    np.testing.assert_array_equal(shared_rows([trace, sample], 6), [0, 1, -1, -1, 2, -1])
    assert shared_rows([None, sample], 6) is sample   # one request: its own rows
    assert shared_rows([None, None], 6) is None


def test_each_observer_reads_its_own_warps_at_its_own_rows():
    rng = np.random.default_rng(0)
    trace, sample = np.array([0, 1, -1, -1, -1, -1]), np.array([-1, 0, -1, -1, 1, -1])
    log_row = shared_rows([trace, sample], 6)
    record = SimpleNamespace(log_row=log_row, log_block=rng.integers(0, 9, (3, 5)), log_len=np.array([5, 3, 4]),
                             warp_count=np.arange(4))
    for rows in (trace, sample):
        view = record_for(record, rows, ("log_block", "log_len"))
        for warp in np.flatnonzero(rows >= 0):
            np.testing.assert_array_equal(view.log_block[rows[warp]], record.log_block[log_row[warp]])
            assert view.log_len[rows[warp]] == record.log_len[log_row[warp]]
        assert view.warp_count is record.warp_count   # what is not per row is the record's
    assert record_for(record, log_row, ("log_block",)) is record
    assert record_for(record, None, ("log_block",)) is record
