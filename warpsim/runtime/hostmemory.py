"""Is a host range the program passed mapped memory? A wild pointer is an error code, not a crash.

The runtime reads and writes host memory through ctypes at the addresses a
program gives it, and a bad address there would kill the process with SIGSEGV
where a GPU's runtime returns cudaErrorInvalidValue. The ranges are checked
against the process's mappings (/proc/self/maps), read once and read again only
when a range falls outside what was read (the program mapped more since), so a
copy costs a binary search, not a file read.
"""

from __future__ import annotations

import bisect

_maps: list = []            # [(start, end, readable, writable)], sorted, adjacent ranges merged
_starts: list = []


def _read_maps() -> None:
    global _maps, _starts
    merged: list = []
    try:
        with open("/proc/self/maps") as handle:
            for line in handle:
                span, perms = line.split()[:2]
                start, end = (int(part, 16) for part in span.split("-"))
                readable, writable = perms[0] == "r", perms[1] == "w"
                if merged and merged[-1][1] == start and merged[-1][2:] == (readable, writable):
                    merged[-1] = (merged[-1][0], end, readable, writable)
                else:
                    merged.append((start, end, readable, writable))
    except OSError:             # no /proc: nothing is checked
        merged = [(0, 1 << 64, True, True)]
    _maps, _starts = merged, [m[0] for m in merged]


def _covered(address: int, count: int, write: bool) -> bool:
    end = address + count
    k = bisect.bisect_right(_starts, address) - 1
    while k >= 0 and k < len(_maps):
        start, stop, readable, writable = _maps[k]
        if not (start <= address < stop) or not readable or (write and not writable):
            return False
        if end <= stop:
            return True
        address, k = stop, k + 1
    return False


def readable_range(address: int, count: int, write: bool = False) -> str:
    """'' when [address, address + count) is mapped (and writable, if write), else why not."""
    if address <= 0 or count < 0 or address + count > 1 << 64:
        return f"host address 0x{max(address, 0):x} is not a valid pointer"
    if _covered(address, count, write):
        return ""
    _read_maps()
    if _covered(address, count, write):
        return ""
    what = "writable" if write else "readable"
    return (f"host range 0x{address:x}..0x{address + count:x} ({count} bytes) is not {what} memory "
            "of the program (a wild or freed host pointer, or a size past the end of its buffer)")
