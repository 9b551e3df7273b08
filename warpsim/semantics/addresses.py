"""The device's address map, as every executor and tier resolves addresses.

Global memory (the device heap) starts at GLOBAL_BASE; a generic address in
[SHARED_WINDOW, SHARED_WINDOW + WINDOW_SIZE) is a shared-memory offset and one
in the local window a local-memory offset, as cvta and the SASS executor's
generic loads resolve them. The PTX machine's heap, its compiled round loop
and the SASS executor take these from here, so the map has one home.
"""

from __future__ import annotations

GLOBAL_BASE = 0x7F00_0000_0000          # where device allocations start
SHARED_WINDOW = 0x0001_0000_0000_0000   # generic address of shared offset 0
LOCAL_WINDOW = 0x0002_0000_0000_0000    # generic address of local offset 0
WINDOW_SIZE = 1 << 32
