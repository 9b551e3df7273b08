"""One log of warps' issues that several observers of a compiled round loop share.

An observer may ask the loop to log every issue of some warps, in order (`logged_warps`,
`sass_logged_warps`: batch warp -> its row of the log, -1 for none): the activity trace its first
warps, the timing model's recorder its sampled CTAs' warps. The loop writes one log, with a row for
each warp any of them named (`shared_rows`), and each observer reads the record through its own
rows (`record_for`), so one observer's log no longer keeps the other's rounds in Python.
"""

from __future__ import annotations

import copy

import numpy as np


def shared_rows(requests, n_warps: int):
    """The log's rows (batch warp -> row, -1: none) for every warp the requests name (each a batch
    warp -> row array, or None), in warp order; a lone request's own rows; None where none asks."""
    requests = [rows for rows in requests if rows is not None]
    if len(requests) <= 1:
        return requests[0] if requests else None
    wanted = np.logical_or.reduce([np.asarray(rows) >= 0 for rows in requests])
    rows = np.full(n_warps, -1, dtype=np.int64)
    rows[wanted] = np.arange(int(wanted.sum()))
    return rows


def record_for(record, rows, names: tuple):
    """`record` as an observer that asked for `rows` sees it: a copy whose per-row arrays `names`
    hold the log's rows of its warps at its own rows (the record itself where the rows are the
    log's, or the observer asked for none)."""
    if rows is None or rows is record.log_row or np.array_equal(rows, record.log_row):
        return record
    view = copy.copy(record)
    mine = np.flatnonzero(rows >= 0)
    count = int(rows.max()) + 1 if len(mine) else 0
    view.log_row = rows
    for name in names:
        kept = getattr(record, name)
        own = np.zeros((count, *kept.shape[1:]), dtype=kept.dtype)
        own[rows[mine]] = kept[record.log_row[mine]]
        setattr(view, name, own)
    return view
